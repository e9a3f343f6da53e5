package diagram

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMermaidOfficialParser parses every Mermaid golden file with the
// official mermaid package, when MCPOKE_MERMAID_DIR names a directory
// where `npm install mermaid@12 jsdom` was run; without it, it skips:
// checkMermaid is the check that always runs.
func TestMermaidOfficialParser(t *testing.T) {
	dir := os.Getenv("MCPOKE_MERMAID_DIR")
	if dir == "" {
		t.Skip("MCPOKE_MERMAID_DIR not set: the official Mermaid parser is not installed")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "TestGolden", "*", "mermaid.golden"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Mermaid golden files: %v", err)
	}
	cmd := exec.Command(node, append([]string{filepath.Join("testdata", "mermaid_parse.mjs")}, files...)...)
	cmd.Env = append(os.Environ(), "MCPOKE_MERMAID_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mermaid rejects: %v\n%s", err, out)
	}
}
