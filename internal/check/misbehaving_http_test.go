package check

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

// servingHTTP serves the misbehaving server over mcpoke's own Streamable
// HTTP server (event ids, resumption with Last-Event-ID) and connects to
// it.
func servingHTTP(t *testing.T, bad misbehaviour) *connect.Conn {
	t.Helper()
	var mu sync.Mutex
	var servers []*misbehavingServer
	hs := transport.NewHTTPServer(transport.HTTPServerConfig{Retry: 100 * time.Millisecond,
		Serve: func(_ string, conn transport.Conn) io.Closer {
			m := serveMisbehaving(conn, bad)
			mu.Lock()
			servers = append(servers, m)
			mu.Unlock()
			return conn
		}})
	var h http.Handler = hs
	if bad.dropIsCancel {
		h = dropCancels(hs, func(id json.RawMessage) {
			mu.Lock()
			defer mu.Unlock()
			for _, m := range servers {
				m.cancelled(json.RawMessage(`{"requestId":` + string(id) + `}`))
			}
		})
	}
	if bad.noEventIDs {
		h = stripEventIDs(h)
	}
	if bad.onResume != nil {
		h = onResumes(h, bad.onResume)
	}
	if bad.emptyResume {
		h = emptyResumes(h)
	}
	srv := httptest.NewServer(h)
	conn, err := connect.Start(connect.Spec{Name: "test", URL: srv.URL, Transport: "http"},
		connect.Options{Session: session.Config{SettleWindow: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); hs.Close(); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return conn
}

// dropCancels cancels the call a POST carried when its client goes before
// the answer: a server that takes a dropped stream for a cancel.
func dropCancels(h http.Handler, cancel func(id json.RawMessage)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
		var msg rawMessage
		if r.Method == http.MethodPost && json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" && r.Context().Err() != nil {
			cancel(msg.ID)
		}
	})
}

// stripEventIDs takes the id lines out of every SSE event: a server whose
// streams cannot be resumed.
func stripEventIDs(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&noIDWriter{w}, r)
	})
}

// emptyResumes answers each resuming GET with an empty event stream: a
// server that offers resumption but has nothing to resume.
func emptyResumes(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.Header.Get("Last-Event-ID") == "" {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
	})
}

// onResumes calls f on each resuming GET, then serves it.
func onResumes(h http.Handler, f func()) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
			f()
		}
		h.ServeHTTP(w, r)
	})
}

type noIDWriter struct{ http.ResponseWriter }

func (w *noIDWriter) Write(p []byte) (int, error) {
	var out [][]byte
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("id:")) {
			out = append(out, line)
		}
	}
	if _, err := w.ResponseWriter.Write(bytes.Join(out, nil)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w *noIDWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *noIDWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func runHTTP(t *testing.T, bad misbehaviour, opts Options) *Report {
	t.Helper()
	conn := servingHTTP(t, bad)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := Run(ctx, conn, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep
}

func TestCheck8PassesAServerThatHonoursHTTPCancellation(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, misbehaviour{}, testOptions(8))
	c := expect(t, rep, 8, Pass, Should)
	if c.Sentence != ruleDropNotCancel.Sentence || rep.Transport != "http" {
		t.Errorf("graded on %q over %s; want the dropped-stream sentence over http", c.Sentence, rep.Transport)
	}
	for _, want := range []string{"POSTed cancel: PASS", "POST notifications/cancelled → 202 Accepted", "dropped stream: PASS",
		"GET Last-Event-ID", "not taken for a cancel", "closed stream: skipped: not in this era"} {
		if !hasFact(c, want) {
			t.Errorf("no fact says %q: %q", want, c.Evidence.Facts)
		}
	}
}

// A server that answers a cancelled request on its stream: check 8's
// POSTed-cancel part warns on the sentence it broke.
func TestCheck8WarnsWhenAPOSTedCancelIsAnswered(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, misbehaviour{answerCancelled: true, answerDelay: 200 * time.Millisecond}, testOptions(8))
	c := expect(t, rep, 8, Warn, Should)
	if c.Sentence != ruleNoResponse.Sentence || !hasFact(c, "POSTed cancel: WARN") || !hasFact(c, "answered the cancelled request on its stream") {
		t.Errorf("sentence %q, facts %q", c.Sentence, c.Evidence.Facts)
	}
	if len(c.Evidence.Frames) == 0 || !bytes.Contains([]byte(c.Evidence.Frames[0].Frame), []byte(`"stopped"`)) {
		t.Errorf("frames %+v; want the answer", c.Evidence.Frames)
	}
}

// A server that stops a call when its POST's client goes: the resumed
// stream never brings the answer, not even a second time.
func TestCheck8WarnsWhenADroppedStreamIsTakenForACancel(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, misbehaviour{dropIsCancel: true}, testOptions(8))
	c := expect(t, rep, 8, Warn, Should)
	if c.Sentence != ruleDropNotCancel.Sentence || !hasFact(c, "dropped stream: WARN") || !hasFact(c, "lost with its stream") ||
		!hasFact(c, "dropped the resumed stream too") || !hasFact(c, "POSTed cancel: PASS") {
		t.Errorf("sentence %q, facts %q", c.Sentence, c.Evidence.Facts)
	}
}

// A server whose resumed streams end empty, every time: the transport
// gives up and the request fails with no error response, lost with its
// stream.
func TestCheck8WarnsWhenResumedStreamsBringNothing(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, misbehaviour{emptyResume: true}, testOptions(8))
	c := expect(t, rep, 8, Warn, Should)
	if c.Sentence != ruleDropNotCancel.Sentence || !hasFact(c, "dropped stream: WARN") ||
		!hasFact(c, "the request was lost after its stream dropped: the response stream of request") ||
		!hasFact(c, "reconnections with Last-Event-ID brought nothing") || !hasFact(c, "POSTed cancel: PASS") {
		t.Errorf("sentence %q, facts %q", c.Sentence, c.Evidence.Facts)
	}
}

// mcpoke interrupted (or --max-timeout ending the run) while it waits
// for the dropped stream's request: the call is cancelled by mcpoke, not
// lost by the server, and the part is skipped, not warned.
func TestCheck8SkipsTheDroppedStreamWhenInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn := servingHTTP(t, misbehaviour{dropIsCancel: true, onResume: cancel})
	rep, err := Run(ctx, conn, testOptions(8))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	c := expect(t, rep, 8, Pass, Should)
	if !hasFact(c, "dropped stream: skipped: the run ended") || !hasFact(c, "POSTed cancel: PASS") {
		t.Errorf("facts %q", c.Evidence.Facts)
	}
}

// hasFact says whether a fact of c contains s.
func hasFact(c Result, s string) bool {
	for _, f := range c.Evidence.Facts {
		if bytes.Contains([]byte(f), []byte(s)) {
			return true
		}
	}
	return false
}

// A server that gives no event ids cannot resume a stream: the dropped
// stream part is skipped with that reason, and the call is left alone.
func TestCheck8SkipsTheDroppedStreamWithoutEventIDs(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, misbehaviour{noEventIDs: true}, testOptions(8))
	c := expect(t, rep, 8, Pass, Should)
	if !hasFact(c, "dropped stream: skipped: the server put no event id on the stream") || !hasFact(c, "POSTed cancel: PASS") {
		t.Errorf("facts %q", c.Evidence.Facts)
	}
}

// A pass never rests on the sentence of a part that was skipped: without
// event ids the dropped stream is not tested, so check 8's PASS quotes the
// POSTed cancel's sentence, not "SHOULD NOT be interpreted as cancelling".
func TestCheck8PassesOnlyOnWhatRan(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, misbehaviour{noEventIDs: true}, testOptions(8))
	c := expect(t, rep, 8, Pass, Should)
	if c.Sentence == ruleDropNotCancel.Sentence {
		t.Errorf("PASS on the skipped part's sentence %q", c.Sentence)
	}
}

// One late answer is graded once: with check 1 in the run, check 8 leaves
// the answer on the stream to it. And check 8's evidence is its call's:
// no cancel POST from before the call's own cancel (the probe's).
func TestCheck8LeavesCheck1sAnswerAndQuotesOnlyItsCall(t *testing.T) {
	t.Parallel()
	rep := runHTTP(t, misbehaviour{answerCancelled: true, answerDelay: 200 * time.Millisecond}, testOptions(1, 8))
	expect(t, rep, 1, Warn, Should)
	c := expect(t, rep, 8, Pass, Should)
	if !hasFact(c, "check 1 grades that answer") {
		t.Errorf("facts %q", c.Evidence.Facts)
	}
	cancelAt := -1.0
	for _, f := range c.Evidence.Facts {
		if _, rest, ok := strings.Cut(f, "POSTed cancel: request "); ok {
			// "… cancelled by POSTing notifications/cancelled 30ms into the call"
			if _, after, ok := strings.Cut(rest, "notifications/cancelled "); ok {
				if d, err := time.ParseDuration(strings.Fields(after)[0]); err == nil {
					cancelAt = float64(d) / float64(time.Millisecond)
				}
			}
		}
	}
	if cancelAt < 0 {
		t.Fatalf("no cancel time in %q", c.Evidence.Facts)
	}
	for _, f := range c.Evidence.Facts {
		if !strings.Contains(f, "POST notifications/cancelled →") {
			continue
		}
		// "POSTed cancel: wire, 31ms into the call: POST notifications/cancelled → 202"
		if _, after, ok := strings.Cut(f, "wire, "); ok {
			if d, err := time.ParseDuration(strings.Fields(after)[0]); err == nil &&
				float64(d)/float64(time.Millisecond) < cancelAt-50 {
				t.Errorf("a cancel POST %s into the call, before the call's own cancel at %.1f ms: %q", d, cancelAt, f)
			}
		}
	}
}
