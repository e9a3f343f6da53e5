package check

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// leaky is a 2026-07-28 server that goes on with a call whose stream the
// client closed (the cancel, in that era), and sends what it wrote for
// that call after the close (its progress and its answer) at the head of
// the next response stream: messages for a cancelled request, which the
// Streamable HTTP page says it MUST NOT send.
func leaky(h http.Handler) http.Handler {
	var mu sync.Mutex
	var held []byte // SSE events written for a closed stream
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leak := held
		held = nil
		mu.Unlock()
		if r.Method != http.MethodPost || len(leak) == 0 {
			lw := &leakWriter{ResponseWriter: w, hold: func(p []byte) { mu.Lock(); held = append(held, p...); mu.Unlock() }}
			h.ServeHTTP(lw, r.WithContext(context.WithoutCancel(r.Context())))
			return
		}
		// This response carries the leak first, then its own answer.
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.Write(leak)
		body := rec.Body.Bytes()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			body = append(append([]byte("event: message\ndata: "), bytes.TrimSpace(body)...), "\n\n"...)
		}
		w.Write(body)
	})
}

// leakWriter passes writes through until the client has gone, then holds
// them for the next response.
type leakWriter struct {
	http.ResponseWriter
	hold func([]byte)
	mu   sync.Mutex
	gone bool
}

func (w *leakWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.gone {
		if _, err := w.ResponseWriter.Write(p); err == nil {
			return len(p), nil
		}
		w.gone = true
	}
	w.hold(bytes.Clone(p))
	return len(p), nil
}

func (w *leakWriter) FlushError() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.gone && http.NewResponseController(w.ResponseWriter).Flush() != nil {
		w.gone = true
	}
	return nil
}

// In 2026-07-28 over HTTP, a cancelled call's answer and progress that
// come after the cancel closed its stream (on another stream) break the
// transport page's MUST NOT send any further messages: checks 1 and 2
// fail on that sentence, where they cannot be observed otherwise and are
// skipped.
func TestChecks1And2FailAServerThatSendsForAClosedStreamOnAnother(t *testing.T) {
	t.Parallel()
	conn := servingModern(t, leaky)
	opts := testOptions(1, 2)
	opts.Tool, opts.Args = "sleep", json.RawMessage(`{"seconds":1,"steps":10}`)
	rep, err := Run(context.Background(), conn, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Protocol != session.Era2026Version {
		t.Fatalf("protocol %s; want %s", rep.Protocol, session.Era2026Version)
	}
	for _, id := range []int{1, 2} {
		c := result(t, rep, id)
		if c.Status != Fail || c.Level != Must || c.Sentence != ruleNoFurtherHTTP.Sentence || !hasFact(c, "after the cancel closed its stream") {
			t.Errorf("check %d: status %s (%s), sentence %q, reason %q, facts %q", id, c.Status, c.Level, c.Sentence, c.Reason, c.Evidence.Facts)
		}
	}
}

// The demo sends nothing for a call whose stream it saw closed: checks 1
// and 2 still cannot see the closed stream itself, and are skipped.
func TestChecks1And2SkipAServerThatSendsNothingForAClosedStream(t *testing.T) {
	t.Parallel()
	conn := servingModern(t, func(h http.Handler) http.Handler { return h })
	opts := testOptions(1, 2)
	opts.Tool, opts.Args = "sleep", json.RawMessage(`{"seconds":1,"steps":10}`)
	rep, err := Run(context.Background(), conn, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{1, 2} {
		if c := result(t, rep, id); c.Status != Skip || !strings.Contains(c.Reason, "closed the request's stream") {
			t.Errorf("check %d: status %s, reason %q", id, c.Status, c.Reason)
		}
	}
}
