package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/connect"
)

// badHeaderTools are a tool whose x-mcp-header marks an object (only
// string, integer and boolean may be) and a plain one.
var badHeaderTools = []any{
	map[string]any{"name": "marked", "inputSchema": map[string]any{"type": "object", "properties": map[string]any{
		"where": map[string]any{"type": "object", "x-mcp-header": "Where"}}}},
	map[string]any{"name": "plain", "inputSchema": map[string]any{"type": "object"}},
}

// A tool with invalid x-mcp-header marks is left out, with a warning,
// only over Streamable HTTP in 2026-07-28, where the marks become
// headers; over stdio the marks mean nothing and the tool is listed.
func TestToolsLeaveOutBadHeaderMarksOnlyOverHTTP(t *testing.T) {
	for _, tc := range []struct {
		transport string
		spec      connect.Spec
		leftOut   bool
	}{
		{"stdio", modernHostileSpec(t, "badheader"), false},
		{"http", badHeaderHTTPServer(t), true},
	} {
		var out, errOut bytes.Buffer
		if err := runTools(testContext(t), &out, &errOut, testGlobals(), tc.spec, "2026-07-28", false, testTimeouts); err != nil {
			t.Fatalf("%s: tools: %v\n%s", tc.transport, err, errOut.String())
		}
		listed := strings.Contains(out.String(), "\nmarked\n")
		warned := strings.Contains(errOut.String(), "mcpoke: warning: tool marked left out: its inputSchema's x-mcp-header is invalid")
		if listed == tc.leftOut || warned != tc.leftOut || !strings.Contains(out.String(), "\nplain\n") {
			t.Errorf("%s: marked listed %v, warned %v; want it left out with a warning: %v\nstdout:\n%s\nstderr:\n%s",
				tc.transport, listed, warned, tc.leftOut, out.String(), errOut.String())
		}
	}
}

// badHeaderHTTPServer is a Streamable HTTP server of protocol 2026-07-28
// whose tools/list answers badHeaderTools.
func badHeaderHTTPServer(t *testing.T) connect.Spec {
	spec := era2026HTTPServerAnswering(t, "badheader", func(_ http.ResponseWriter, method string, _ json.RawMessage, reply func(any)) {
		result := map[string]any{"resultType": "complete"}
		if method == "tools/list" {
			result["tools"] = badHeaderTools
		}
		reply(result)
	})
	spec.Name = "badheader-http"
	return spec
}
