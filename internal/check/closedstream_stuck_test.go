package check

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// stuckAfterClose serves the demo until a client closes the stream of a
// tools/call a second time (the first is the tool probe's); from then on it holds every tools/call unanswered until
// its client goes, as a server whose handler hung on the cancel would.
func stuckAfterClose(h http.Handler) http.Handler { return afterClose(h, false) }

// failingAfterClose answers every tools/call after a closed stream with
// 500 Internal Server Error.
func failingAfterClose(h http.Handler) http.Handler { return afterClose(h, true) }

func afterClose(h http.Handler, fail bool) http.Handler {
	var closes atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !bytes.Contains(body, []byte(`"tools/call"`)) {
			h.ServeHTTP(w, r)
			return
		}
		if closes.Load() >= 2 {
			if fail {
				http.Error(w, "internal error", http.StatusInternalServerError)
				return
			}
			<-r.Context().Done()
			return
		}
		h.ServeHTTP(w, r)
		if r.Context().Err() != nil {
			closes.Add(1) // the client closed this call's stream
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

// A following call that fails reports no work in flight: whether the
// closed call stopped is not seen, and the part is skipped saying why
// (it warned, under the era's MUST label, though nothing was shown
// broken).
func TestCheck8SkipsTheClosedStreamWhenTheFollowingCallFails(t *testing.T) {
	t.Parallel()
	c := runModern(t, failingAfterClose, "sleep", `{"seconds":1,"steps":10}`)
	if c.Status != Skip || !strings.Contains(c.Reason, "failed: ") || !strings.Contains(c.Reason, "cannot be seen") {
		t.Errorf("status %s, reason %q, facts %q", c.Status, c.Reason, c.Evidence.Facts)
	}
}
