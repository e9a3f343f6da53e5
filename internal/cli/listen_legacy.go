package cli

import (
	"context"
	"io"
	"strconv"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// unsubscribeGrace bounds resources/unsubscribe when listen stops after
// ctrl-c, whose context is already over.
const unsubscribeGrace = 2 * time.Second

// legacy is listen before 2026-07-28, which has no subscriptions/listen:
// list changes come unasked (those filter names are printed), and each
// resource is followed with resources/subscribe, then unsubscribed.
func (l *listenRun) legacy(ctx context.Context, filter mcp.ListenFilter, force bool, stderr io.Writer) error {
	s := l.srv.Session
	l.out.listen(session.ID{}, filter, false)
	var subscribed []string
	if len(filter.ResourceSubscriptions) > 0 {
		if err := checkDeclared(l.srv, "resources/subscribe", stderr, force); err != nil {
			return err
		}
	}
	for _, uri := range filter.ResourceSubscriptions {
		err := mcp.SubscribeResource(ctx, s, uri, l.f.timeout)
		l.out.subscribed(l.at(time.Now()), "resources/subscribe", uri, err)
		if err != nil {
			l.unsubscribe(subscribed)
			return l.finish(listenEnd{by: "server", reason: "resources/subscribe " + uri + " failed", failed: true})
		}
		subscribed = append(subscribed, uri)
	}
	l.acked = true // nothing to acknowledge in this era
	end := l.follow(ctx, func(e session.Event) (listenEnd, bool) {
		n, ok := e.(session.NotificationArrived)
		if !ok || !filter.Wants(n.Method, n.Params) {
			return listenEnd{}, false
		}
		l.count++
		l.out.notification(l.at(n.At), n.Method, n.Params, false)
		if l.countReached() {
			return l.stop("--count " + strconv.Itoa(l.f.count) + " reached"), true
		}
		return listenEnd{}, false
	})
	if end.by != "connection" {
		l.unsubscribe(subscribed)
	}
	return l.finish(end)
}

// unsubscribe ends the resources/subscribe subscriptions, each by its
// resources/unsubscribe.
func (l *listenRun) unsubscribe(uris []string) {
	for _, uri := range uris {
		ctx, cancel := context.WithTimeout(context.Background(), min(l.f.timeout, unsubscribeGrace))
		err := mcp.UnsubscribeResource(ctx, l.srv.Session, uri, l.f.timeout)
		cancel()
		l.out.subscribed(l.at(time.Now()), "resources/unsubscribe", uri, err)
	}
}
