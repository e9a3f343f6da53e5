package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
)

// era2026HTTPServer is a Streamable HTTP server of protocol 2026-07-28
// whose server/discover names it name and offers tools; toolsCall
// answers each tools/call, reply writes a JSON result for its id.
func era2026HTTPServer(t *testing.T, name string, toolsCall func(w http.ResponseWriter, id json.RawMessage, reply func(any))) connect.Spec {
	return era2026HTTPServerAnswering(t, name, func(w http.ResponseWriter, method string, id json.RawMessage, reply func(any)) {
		if method == "tools/call" {
			toolsCall(w, id, reply)
			return
		}
		reply(map[string]any{"resultType": "complete"})
	})
}

// era2026HTTPServerAnswering is era2026HTTPServer with answer called for
// every request but server/discover.
func era2026HTTPServerAnswering(t *testing.T, name string, answer func(w http.ResponseWriter, method string, id json.RawMessage, reply func(any))) connect.Spec {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		if msg.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		reply := func(result any) {
			w.Header().Set("Content-Type", "application/json")
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
			w.Write(b)
		}
		switch msg.Method {
		case "server/discover":
			reply(map[string]any{"resultType": "complete", "supportedVersions": []any{"2026-07-28"},
				"capabilities": map[string]any{"tools": map[string]any{}},
				"_meta":        map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": name, "version": "1"}}})
		default:
			answer(w, msg.Method, msg.ID, reply)
		}
	}))
	t.Cleanup(srv.Close)
	return connect.Spec{Name: name, URL: srv.URL, Transport: "http"}
}

// hostileHTTPServer is a Streamable HTTP server of protocol 2026-07-28
// with bad text in discover, that misbehaves on tools/call by mode:
//
//	lost       opens an SSE stream and closes it with no event
//	badstatus  answers HTTP 500 with bad text and a megabyte in the body
//	badsse     sends an SSE event whose data is not JSON, with escapes
//	2025shape  answers in a 2025 shape: an initialize result
func hostileHTTPServer(t *testing.T, mode string) connect.Spec {
	spec := era2026HTTPServer(t, bad("web"), func(w http.ResponseWriter, _ json.RawMessage, reply func(any)) {
		switch mode {
		case "lost":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
		case "badstatus":
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, bad("boom")+strings.Repeat("x", 1<<20))
		case "badsse":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: message\ndata: "+bad("not json")+"\n\n")
		case "2025shape":
			reply(map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": bad("x")}, "capabilities": map[string]any{}})
		}
	})
	spec.Name = "hostile-http-" + mode
	return spec
}

// Over Streamable HTTP in protocol 2026-07-28, a lost stream, an HTTP
// error with a hostile body, an SSE event that is not JSON and an answer
// of the wrong era's shape each end the call with a clear, escaped and
// bounded report, text and --json.
func TestHostileHTTPCallEndsClearly(t *testing.T) {
	for mode, want := range map[string][]string{
		"lost":      {"re-issued request", "state     failed", "error     lost: stream broke at +", "re-issue it under a new id"},
		"badstatus": {"state     failed", "boom" + escapedBad},
		"badsse":    {"noise     2 lines that are not JSON", "not json" + escapedBad, "error     lost: stream broke"},
		"2025shape": {"state     completed", "(not a CallToolResult, or not one mcpoke can read: shown as it came)"},
	} {
		spec := hostileHTTPServer(t, mode)
		for _, asJSON := range []bool{false, true} {
			call := modernRun{"call " + mode, func(o, e *bytes.Buffer, j bool) error {
				return runCall(testContext(t), o, e, testGlobals(), spec, "t", &callFlags{json: j, protocol: "auto", unlisted: true, timeoutFlags: timeoutFlags{timeout: 5 * time.Second}})
			}}
			out, printed := runModern(t, call, asJSON)
			if len(out) > 64<<10 {
				t.Errorf("%s (json %v): the report is %d bytes", mode, asJSON, len(out))
			}
			if os.Getenv("H19") != "" {
				t.Logf("%s json=%v: %s\n%.1500s", mode, asJSON, printed, out)
			}
			if asJSON {
				continue
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("%s: the report lacks %q: %s\n%.3000s", mode, w, printed, out)
				}
			}
		}
	}
}
