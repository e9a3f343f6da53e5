package list

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsNoBubbleTeaNorUI keeps the list a model of its own: it draws
// nothing and knows no keys, so the panes of any toolkit could use it.
func TestImportsNoBubbleTeaNorUI(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources found (%v): is the test running in ui/list?", err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "charm.land/") || strings.HasPrefix(path, "github.com/charmbracelet/") ||
				strings.HasPrefix(path, "github.com/mcpoke/mcpoke/") {
				t.Errorf("%s imports %s: the list imports only the standard library", name, path)
			}
		}
	}
}
