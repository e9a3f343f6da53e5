package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// call --diagram draws exactly what mcpoke diagram draws from the file
// --transcript wrote in the same run, and a hostile server's text comes
// out escaped in both formats.
func TestCallDiagramIsTheTranscriptsDiagram(t *testing.T) {
	for _, format := range []string{"text", "mermaid"} {
		t.Run(format, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "call.ndjson")
			var out, errOut bytes.Buffer
			args, _ := json.Marshal(map[string]string{hostileProp: hostileEnum})
			err := runCall(testContext(t), &out, &errOut, testGlobals(), hostileSpec(t), hostileTool,
				&callFlags{args: string(args), diagram: format, transcript: path})
			if err != nil {
				t.Fatalf("call --diagram %s: %v\n%s", format, err, errOut.String())
			}
			assertTerminalSafe(t, "call --diagram", out.Bytes())

			var drawn, drawErr bytes.Buffer
			render, err := diagramRenderer(format, 60)
			if err != nil {
				t.Fatal(err)
			}
			if err := runDiagram(&drawn, &drawErr, path, &diagramFlags{}, render); err != nil {
				t.Fatalf("diagram: %v\n%s", err, drawErr.String())
			}
			if drawn.Len() == 0 || !strings.HasSuffix(out.String(), "\n\n"+drawn.String()) {
				t.Errorf("call's diagram is not the transcript's:\n%s\n--- from the file:\n%s", out.String(), drawn.String())
			}
			if !strings.Contains(drawn.String(), "add"+escapedInjection) {
				t.Errorf("the tool's name is not shown escaped:\n%s", drawn.String())
			}
		})
	}
}
