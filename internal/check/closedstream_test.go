package check

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/session"
)

// servingModern connects, in protocol 2026-07-28, to the demo server over
// HTTP behind wrap.
func servingModern(t *testing.T, wrap func(http.Handler) http.Handler) *connect.Conn {
	t.Helper()
	h := demo.HTTPHandler(io.Discard, demo.Options{}, false)
	srv := httptest.NewServer(wrap(h))
	conn, err := connect.Start(connect.Spec{Name: "test", URL: srv.URL + "/mcp", Transport: "http"},
		connect.Options{Protocol: session.Era2026Version, Session: session.Config{SettleWindow: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); h.Close(); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return conn
}

// deaf keeps serving a request whose client went: its context never ends
// and writes after the client left succeed, so the work goes on to its
// end, as at a server that does not notice a closed stream.
func deaf(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&deafWriter{ResponseWriter: w}, r.WithContext(context.WithoutCancel(r.Context())))
	})
}

type deafWriter struct {
	http.ResponseWriter
	gone atomic.Bool
}

func (w *deafWriter) Write(p []byte) (int, error) {
	if !w.gone.Load() {
		if _, err := w.ResponseWriter.Write(p); err != nil {
			w.gone.Store(true)
		}
	}
	return len(p), nil
}

func (w *deafWriter) FlushError() error {
	if !w.gone.Load() && http.NewResponseController(w.ResponseWriter).Flush() != nil {
		w.gone.Store(true)
	}
	return nil
}

func runModern(t *testing.T, wrap func(http.Handler) http.Handler, tool, args string) Result {
	t.Helper()
	conn := servingModern(t, wrap)
	opts := testOptions(8)
	opts.Tool, opts.Args = tool, json.RawMessage(args)
	rep, err := Run(context.Background(), conn, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Protocol != session.Era2026Version {
		t.Fatalf("protocol %s; want %s", rep.Protocol, session.Era2026Version)
	}
	return result(t, rep, 8)
}

func TestWorkingMetaIsTheDemos(t *testing.T) {
	if workingMeta != demo.WorkingMeta {
		t.Errorf("check asks for %q, the demo reports %q", workingMeta, demo.WorkingMeta)
	}
}

// The demo stops a call whose stream closed: the next call's report of
// the work in flight no longer lists it.
func TestCheck8PassesAServerThatStopsOnAClosedStream(t *testing.T) {
	t.Parallel()
	c := runModern(t, func(h http.Handler) http.Handler { return h }, "sleep", `{"seconds":1,"steps":10}`)
	if c.Status != Pass || c.Level != Must || !hasFact(c, "closed stream: PASS") || !hasFact(c, "the work stopped") {
		t.Errorf("status %s (%s), facts %q", c.Status, c.Level, c.Evidence.Facts)
	}
}

// A server that works on after the stream closed breaks the era's MUST.
func TestCheck8FailsWhenTheWorkGoesOnAfterTheStreamCloses(t *testing.T) {
	t.Parallel()
	c := runModern(t, deaf, "sleep", `{"seconds":3,"steps":10}`)
	if c.Status != Fail || c.Level != Must || c.Sentence != ruleCloseCancels.Sentence || !hasFact(c, "the work went on") {
		t.Errorf("status %s (%s), sentence %q, facts %q", c.Status, c.Level, c.Sentence, c.Evidence.Facts)
	}
}

// mute renames the demo's report of the work in flight in every body:
// a server that keeps no such report.
func mute(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&muteWriter{w}, r)
	})
}

type muteWriter struct{ http.ResponseWriter }

func (w *muteWriter) Write(p []byte) (int, error) {
	if _, err := w.ResponseWriter.Write(bytes.ReplaceAll(p, []byte(workingMeta), []byte("mcpoke/w0rking"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *muteWriter) FlushError() error { return http.NewResponseController(w.ResponseWriter).Flush() }

// Without the report, whether the work stopped cannot be seen: the part
// is skipped, saying that the server answered the following call.
func TestCheck8SkipsTheClosedStreamWithoutAReport(t *testing.T) {
	t.Parallel()
	c := runModern(t, mute, "sleep", `{"seconds":1,"steps":10}`)
	if c.Status != Skip || !strings.Contains(c.Reason, "closed stream: closed the stream of request") ||
		!strings.Contains(c.Reason, "reports no work in flight") {
		t.Errorf("status %s, reason %q", c.Status, c.Reason)
	}
}
