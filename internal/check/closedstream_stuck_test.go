package check

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
)

// stuckAfterClose serves the demo until a client closes the stream of a
// tools/call; from then on it holds every tools/call unanswered until
// its client goes, as a server whose handler hung on the cancel would.
func stuckAfterClose(h http.Handler) http.Handler {
	var closed atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !bytes.Contains(body, []byte(`"tools/call"`)) {
			h.ServeHTTP(w, r)
			return
		}
		if closed.Load() {
			<-r.Context().Done()
			return
		}
		h.ServeHTTP(w, r)
		if r.Context().Err() != nil {
			closed.Store(true) // the client closed this call's stream
		}
	})
}

// In 2026-07-28, a server whose next call gets no answer after a closed
// stream fails check 8's closed-stream part at the MUST to handle the
// race gracefully.
func TestCheck8FailsAServerStuckAfterAClosedStream(t *testing.T) {
	t.Parallel()
	c := runModern(t, stuckAfterClose, "sleep", `{"seconds":1,"steps":10}`)
	if c.Status != Fail || c.Sentence != ruleGraceful.Sentence || !hasFact(c, "closed stream: FAIL") || !hasFact(c, "got no answer within 3s of the close") {
		t.Errorf("status %s (%s), sentence %q, facts %q", c.Status, c.Level, c.Sentence, c.Evidence.Facts)
	}
}
