package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
)

// losingServer is a 2026-07-28 Streamable HTTP server that breaks the
// response stream of the first `losses` tools/calls and answers the rest.
// ids records the id of every tools/call it got.
type losingServer struct {
	mu     sync.Mutex
	losses int
	ids    []string
}

func (l *losingServer) spec(t *testing.T) connect.Spec {
	return era2026HTTPServer(t, "losing", func(w http.ResponseWriter, id json.RawMessage, reply func(any)) {
		l.mu.Lock()
		l.ids = append(l.ids, string(id))
		lose := len(l.ids) <= l.losses
		l.mu.Unlock()
		if lose {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK) // and the stream ends with no event
			return
		}
		reply(map[string]any{"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": "answered"}}})
	})
}

func (l *losingServer) calls() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.ids...)
}

// In protocol 2026-07-28 a broken response stream loses the request, and
// "clients MUST re-issue it as a new request with a new request ID"
// (changelog, SEP-2575). call re-issues a lost request once, under a new
// id, and says so; a second loss stands, reported, and is not re-issued
// again.
func TestCallReissuesALostRequestOnce(t *testing.T) {
	for _, tc := range []struct {
		losses    int
		wantCalls int
		want      []string
	}{
		{1, 2, []string{"re-issued request {lost} was lost (stream broke at +", "; sent again as request {new}, as protocol 2026-07-28 asks", "state     completed", "answered"}},
		{5, 2, []string{"re-issued request {lost} was lost", "state     failed", "error     lost: stream broke at +"}},
	} {
		for _, asJSON := range []bool{false, true} {
			l := &losingServer{losses: tc.losses}
			spec := l.spec(t)
			var out, errOut bytes.Buffer
			err := runCall(testContext(t), &out, &errOut, testGlobals(), spec, "t", &callFlags{json: asJSON, protocol: "auto", unlisted: true, timeoutFlags: timeoutFlags{timeout: 5 * time.Second}})
			if tc.losses == 1 && err != nil {
				t.Fatalf("losses %d: call failed: %v\n%s", tc.losses, err, out.String())
			}
			ids := l.calls()
			if len(ids) != tc.wantCalls {
				t.Fatalf("losses %d: the server got %d tools/calls (%v), want %d", tc.losses, len(ids), ids, tc.wantCalls)
			}
			if ids[0] == ids[1] {
				t.Errorf("losses %d: the re-issue reused id %s; it must be a new request id", tc.losses, ids[0])
			}
			if asJSON {
				var rep struct {
					RequestID json.RawMessage `json:"requestId"`
					Retried   *struct {
						RequestID json.RawMessage `json:"requestId"`
						Lost      bool            `json:"lost"`
					} `json:"retried"`
				}
				if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &rep); err != nil {
					t.Fatalf("losses %d: --json: %v\n%s", tc.losses, err, out.String())
				}
				if rep.Retried == nil || !rep.Retried.Lost || string(rep.Retried.RequestID) != ids[0] || string(rep.RequestID) != ids[1] {
					t.Errorf("losses %d: --json says retried %+v, request %s; want the lost %s re-issued as %s", tc.losses, rep.Retried, rep.RequestID, ids[0], ids[1])
				}
				continue
			}
			named := strings.NewReplacer("{lost}", ids[0], "{new}", ids[1])
			for _, w := range tc.want {
				w = named.Replace(w)
				if !strings.Contains(out.String(), w) {
					t.Errorf("losses %d: the report lacks %q:\n%s", tc.losses, w, out.String())
				}
			}
		}
	}
}
