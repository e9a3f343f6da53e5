package demo

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// In 2026-07-28 a resource subscription rides on subscriptions/listen:
// the demo acknowledges the URIs it knows, and notifies demo://ticker's
// ticks tagged with the listen's id until the client closes it.
func TestListenSubscribesToResources(t *testing.T) {
	cli, _ := startServer(t, quick)
	cli.UseEra2026(session.Era2026Options{})
	events := cli.Subscribe()
	defer events.Close()
	c, err := mcp.Listen(ctx(t), cli, mcp.ListenFilter{ResourceSubscriptions: []string{tickerURI, "demo://nothing", readmeURI}})
	if err != nil {
		t.Fatal(err)
	}
	ack := waitFor(t, events, func(e session.Event) bool { _, ok := e.(session.SubscriptionNotified); return ok }).(session.SubscriptionNotified)
	f, err := mcp.ParseListenAck(ack.Note.Params)
	if err != nil || !slices.Equal(f.ResourceSubscriptions, []string{tickerURI, readmeURI}) || f.ToolsListChanged {
		t.Fatalf("acknowledged %+v %v (%s)", f, err, ack.Note.Params)
	}
	for range 2 {
		n := waitFor(t, events, func(e session.Event) bool { _, ok := e.(session.SubscriptionNotified); return ok }).(session.SubscriptionNotified)
		if uri, err := mcp.ParseResourceUpdated(n.Note.Params); n.Note.Method != mcp.ResourceUpdated || n.Ref.Seq != c.Seq() || err != nil || uri != tickerURI {
			t.Fatalf("note %+v", n)
		}
	}
	if err := cli.Request(c.Ref()).Cancel("done"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(ctx(t)); !errors.Is(err, session.ErrCancelled) {
		t.Fatalf("listen ended with %v", err)
	}
	// goleak (TestMain) checks that the ticking ended.
}

// In 2026-07-28 the demo logs about a request only at the level its _meta
// names, and an unknown resource is -32602.
func TestModernLogLevelPerRequestAndNotFound(t *testing.T) {
	cli, _ := startServer(t, quick)
	cli.UseEra2026(session.Era2026Options{})
	events := cli.Subscribe()
	defer events.Close()
	// logged counts the log messages that came before the answer to the
	// last request: the demo logs before it answers, on the same stream.
	logged := func() int {
		n := 0
		waitFor(t, events, func(e session.Event) bool {
			if a, ok := e.(session.NotificationArrived); ok && a.Method == mcp.LogMessage {
				n++
			}
			c, ok := e.(session.StateChanged)
			return ok && c.To.Final()
		})
		return n
	}
	if _, err := read(t, cli, readmeURI); err != nil {
		t.Fatal(err)
	}
	if n := logged(); n != 0 {
		t.Fatalf("%d log messages for a request without a level", n)
	}
	if err := cli.SetLogLevel("info"); err != nil {
		t.Fatal(err)
	}
	if _, err := read(t, cli, readmeURI); err != nil {
		t.Fatal(err)
	}
	if n := logged(); n != 1 {
		t.Fatalf("%d log messages for a request at info", n)
	}
	if _, err := read(t, cli, "demo://nothing"); !isCode(err, session.CodeInvalidParams) {
		t.Fatalf("read of nothing: %v", err)
	}
}
