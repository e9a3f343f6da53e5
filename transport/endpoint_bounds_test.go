package transport

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A legacy server whose endpoint event carries a session id that is not
// visible ASCII, or is too long, is refused at the dial with a clear
// error: nothing is POSTed to it, so the id is never sent back.
func TestLegacyEndpointRefusesBadSessionID(t *testing.T) {
	hostile := strings.Repeat("\u0085\u202e\U000E0041", 10<<10/9) // C1, bidi, tag: 10 KB
	for name, tc := range map[string]struct{ endpoint, want string }{
		"C1, bidi and tag bytes": {"/messages?sessionId=" + hostile, "over mcpoke's bound"},
		"short with a bidi char": {"/messages?sessionId=ab\u202ecd", "byte 0xe2 at offset 22"},
		"a space inside":         {"/messages?sessionId=ab cd", "byte 0x20 at offset 22"},
		"too long":               {"/messages?sessionId=" + strings.Repeat("a", MaxEndpointLen), "over mcpoke's bound of 4096"},
	} {
		t.Run(name, func(t *testing.T) {
			var posts atomic.Int32
			mux := http.NewServeMux()
			mux.HandleFunc("/sse", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "event: endpoint\ndata: "+tc.endpoint+"\n\n")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			})
			mux.HandleFunc("/messages", func(w http.ResponseWriter, r *http.Request) {
				posts.Add(1)
				w.WriteHeader(http.StatusAccepted)
			})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			l, err := DialSSE(HTTPOptions{URL: srv.URL + "/sse", ConnectTimeout: 5 * time.Second})
			if err == nil {
				l.Send([]byte(initFrame))
				l.Close()
				t.Fatalf("the endpoint %.60q was taken (%d POSTs sent to it)", tc.endpoint, posts.Load())
			}
			if !strings.Contains(err.Error(), "endpoint event's URI") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("dial failed with %q; want it to name the endpoint event and say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\u202e") || strings.Contains(err.Error(), "\u0085") {
				t.Errorf("the error quotes the hostile bytes raw: %.120q", err)
			}
		})
	}
	if u, err := resolveEndpoint("http://127.0.0.1:1/sse", "/messages?sessionId=3f2c9a1e-UUID.jwt_like~x%20"); err != nil || !strings.HasSuffix(u, "sessionId=3f2c9a1e-UUID.jwt_like~x%20") {
		t.Errorf("a visible-ASCII endpoint: %q, %v", u, err)
	}
}
