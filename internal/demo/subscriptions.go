package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// defaultTickEvery is how often demo://ticker changes.
const defaultTickEvery = 3 * time.Second

// subscriptions are the URIs the client subscribed to, each with the
// stop of its watcher.
type subscriptions struct {
	mu    sync.Mutex
	stops map[string]func()
	wg    sync.WaitGroup
}

// tick is demo://ticker's value: how many ticks since the server started.
func (srv *server) tick() int { return int(time.Since(srv.started) / srv.tickEvery) }

// subscribe answers resources/subscribe. demo://ticker notifies at every
// tick; the other resources never change, so their subscription is kept
// but quiet. Subscribing twice is one subscription.
func (srv *server) subscribe(_ context.Context, in *session.Incoming) (any, error) {
	uri, err := subscriptionURI(in)
	if err != nil {
		return nil, err
	}
	if !srv.known(uri) {
		return nil, resourceNotFound(in, uri)
	}
	srv.logFor(in, "info", "resources", "subscribed to "+uri)
	subs := &srv.subs
	subs.mu.Lock()
	defer subs.mu.Unlock()
	if _, ok := subs.stops[uri]; ok {
		return struct{}{}, nil
	}
	if subs.stops == nil {
		subs.stops = map[string]func(){}
	}
	stop := make(chan struct{})
	subs.stops[uri] = sync.OnceFunc(func() { close(stop) })
	if uri == tickerURI {
		s := in.Session()
		subs.wg.Add(1)
		go func() {
			defer subs.wg.Done()
			srv.watchTicker(s, stop)
		}()
	}
	return struct{}{}, nil
}

// unsubscribe answers resources/unsubscribe; unsubscribing from a URI not
// subscribed to is not an error.
func (srv *server) unsubscribe(_ context.Context, in *session.Incoming) (any, error) {
	uri, err := subscriptionURI(in)
	if err != nil {
		return nil, err
	}
	srv.logFor(in, "info", "resources", "unsubscribed from "+uri)
	srv.subs.mu.Lock()
	stop := srv.subs.stops[uri]
	delete(srv.subs.stops, uri)
	srv.subs.mu.Unlock()
	if stop != nil {
		stop()
	}
	return struct{}{}, nil
}

// stopAll ends every subscription and waits for their watchers: the
// session is over.
func (srv *server) stopSubscriptions() {
	srv.subs.mu.Lock()
	for uri, stop := range srv.subs.stops {
		stop()
		delete(srv.subs.stops, uri)
	}
	srv.subs.mu.Unlock()
	srv.subs.wg.Wait()
}

// watchTicker sends notifications/resources/updated for demo://ticker at
// every tick until stop or the session ends.
func (srv *server) watchTicker(s *session.Session, stop <-chan struct{}) {
	for {
		next := srv.started.Add(time.Duration(srv.tick()+1) * srv.tickEvery)
		t := time.NewTimer(time.Until(next))
		select {
		case <-stop:
			t.Stop()
			return
		case <-s.Done():
			t.Stop()
			return
		case <-t.C:
		}
		srv.logTo(s, "debug", "resources", fmt.Sprintf("%s is now tick %d", tickerURI, srv.tick()))
		if s.Notify(mcp.ResourceUpdated, map[string]string{"uri": tickerURI}) != nil {
			return
		}
	}
}

// known reports whether uri is a resource the demo has.
func (srv *server) known(uri string) bool {
	for _, r := range srv.resources() {
		if r.URI == uri {
			return true
		}
	}
	_, ok := mcp.MatchTemplate(greetingTemplate.URITemplate, uri)
	return ok
}

func subscriptionURI(in *session.Incoming) (string, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(in.Params, &p); err != nil || p.URI == "" {
		return "", invalidParams("%s: params must be an object with a uri", in.Method)
	}
	return p.URI, nil
}
