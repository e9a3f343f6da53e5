package otelspan_test

import (
	"context"
	"encoding/json"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/otelspan"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// TestNoBackendNeitherSlowsNorHoldsExit: with no collector listening, or
// one that takes the connection and never answers, requests go at their
// usual pace (the export is off their path) and Close returns within
// the flush time, saying what happened.
func TestNoBackendNeitherSlowsNorHoldsExit(t *testing.T) {
	for name, endpoint := range map[string]string{"refused": refusingEndpoint(t), "silent": silentEndpoint(t)} {
		t.Run(name, func(t *testing.T) {
			const flush = 500 * time.Millisecond
			exp, err := otelspan.New(otelspan.Options{Endpoint: endpoint, Flush: flush})
			if err != nil {
				t.Fatal(err)
			}
			a, c := transporttest.Pipe()
			srv := session.New(c, session.Config{Handlers: map[string]session.Handler{
				"echo": func(_ context.Context, in *session.Incoming) (any, error) { return in.Params, nil },
			}})
			defer srv.Close()
			cli := session.New(a, session.Config{NoProgressTokens: true, SettleWindow: -1, Trace: true})
			done := exp.Watch(cli, otelspan.SessionInfo{Transport: "pipe"})
			// The batch goes out after a second: requests over two batches
			// run while the exporter fails to send.
			start := time.Now()
			slowest := time.Duration(0)
			for time.Since(start) < 1500*time.Millisecond {
				t0 := time.Now()
				if _, err := cli.Do(context.Background(), "echo", json.RawMessage(`{}`), session.CallOptions{}); err != nil {
					t.Fatal(err)
				}
				slowest = max(slowest, time.Since(t0))
			}
			// A send that blocked a request would take it to the flush
			// time (the exporter's timeout); a loaded machine's pause is
			// well under it.
			if slowest >= flush {
				t.Errorf("the slowest request took %s, as long as the exporter's timeout: the export is on its path", slowest)
			}
			cli.Close()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the watcher did not end within 5s of the session's close")
			}
			t0 := time.Now()
			err = exp.Close()
			took := time.Since(t0)
			if took > flush+time.Second {
				t.Errorf("Close took %s with no backend; want at most the flush time, %s", took, flush)
			}
			t.Logf("slowest request %s; Close took %s: %v", slowest, took, err)
		})
	}
}

// refusingEndpoint is a loopback URL nothing listens on.
func refusingEndpoint(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// silentEndpoint takes connections and never answers, as a collector
// behind a dead route would.
func silentEndpoint(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}
