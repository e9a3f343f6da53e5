package transport

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// A session id that is not visible ASCII, or is too long, fails the
// initialize with a clear error and is never kept or sent back.
func TestHTTPRefusesBadSessionID(t *testing.T) {
	hostile := strings.Repeat("\u0085\u202e\U000E0041", 10<<10/9) // C1, bidi, tag: 10 KB
	for name, tc := range map[string]struct{ sid, want string }{
		"C1, bidi and tag bytes": {hostile, "over mcpoke's bound"},
		"short with a C1 byte":   {"ab\u0085cd", "byte 0xc2 at offset 2"},
		"a space":                {"ab cd", "byte 0x20 at offset 2"},
		"too long":               {strings.Repeat("a", MaxSessionIDLen+1), "over mcpoke's bound"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if r.Method != http.MethodPost {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				w.Header()["Mcp-Session-Id"] = []string{tc.sid}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, initResult)
			}))
			t.Cleanup(srv.Close)
			h := dialTest(t, srv.URL, nil)
			if err := h.Send([]byte(initFrame)); err != nil {
				t.Fatal(err)
			}
			m, facts := recvUntil(t, h, wire.KindRequestError)
			if !strings.Contains(string(m.Data), tc.want) || !strings.Contains(string(m.Data), "Mcp-Session-Id") {
				t.Errorf("initialize failed with %q; want it to name the header and say %q", m.Data, tc.want)
			}
			if h.SessionID() != "" {
				t.Errorf("kept the session id (%d bytes)", len(h.SessionID()))
			}
			for _, f := range facts {
				if strings.Contains(f, tc.sid) {
					t.Errorf("the session id went into a record: %.80q", f)
				}
			}
		})
	}
	if err := checkSessionID("3f2c9a1e-UUID.jwt_like~x"); err != nil {
		t.Errorf("a visible-ASCII id refused: %v", err)
	}
}
