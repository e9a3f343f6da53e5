package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the module path every mcpoke import starts with.
const module = "github.com/mcpoke/mcpoke"

// listedPackage is what the layer rules read of `go list -json`.
type listedPackage struct {
	ImportPath string
	Imports    []string // non-test imports
}

// TestLayers keeps the arrows of the design pointing down: transport
// knows only the wire record, session only transport (and the wire
// record and clock leaves), the UI never the transport, and only the
// CLI and main open the UI; main calls only the CLI.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 5 || !slices.ContainsFunc(pkgs, func(p listedPackage) bool { return p.ImportPath == module+"/ui" }) {
		t.Fatalf("go list found %d packages and no ui: is the test running at the module root?", len(pkgs))
	}
	for _, v := range layerViolations(pkgs) {
		t.Error(v)
	}
}

// TestLayerRulesCatchViolations shows each rule failing on a made-up
// module, so that TestLayers passing means something.
func TestLayerRulesCatchViolations(t *testing.T) {
	m := func(rel string) string { return module + "/" + rel }
	pkgs := []listedPackage{
		{m("transport"), []string{"os", m("internal/wire"), m("internal/termtext")}},
		{m("session"), []string{m("transport"), m("internal/wire"), m("internal/clock"), m("internal/mcp")}},
		{m("ui"), []string{m("session"), m("transport")}},
		{m("internal/demo"), []string{m("ui")}},
		{m("internal/cli"), []string{m("ui")}},
		{module, []string{m("internal/cli"), m("transport")}},
	}
	got := layerViolations(pkgs)
	want := []string{
		"transport imports internal/termtext",
		"session imports internal/mcp",
		"ui imports transport",
		"internal/demo imports ui",
		"main imports transport",
	}
	if len(got) != len(want) {
		t.Fatalf("violations:\n%s\nwant %d, one each for: %s", strings.Join(got, "\n"), len(want), strings.Join(want, "; "))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("violation %d is %q; want it to start with %q", i, got[i], w)
		}
	}
}

// layerViolations returns one line per import that breaks a rule, with
// the rule it breaks.
func layerViolations(pkgs []listedPackage) []string {
	var out []string
	for _, p := range pkgs {
		from := relative(p.ImportPath)
		for _, imp := range p.Imports {
			to, ours := strings.CutPrefix(imp, module+"/")
			if !ours {
				continue
			}
			if why := brokenRule(from, to); why != "" {
				out = append(out, from+" imports "+to+": "+why)
			}
		}
	}
	return out
}

// brokenRule says which rule an import from one package to another
// (paths relative to the module, "main" for the root) breaks, or "".
func brokenRule(from, to string) string {
	switch {
	case within(from, "transport") && !within(to, "transport") && to != "internal/wire":
		return "transport moves bytes; it may import only internal/wire"
	case within(from, "session") && !within(to, "session") &&
		!within(to, "transport") && to != "internal/wire" && to != "internal/clock":
		return "session may import only transport, internal/wire and internal/clock"
	case within(from, "ui") && within(to, "transport"):
		return "the UI reaches the wire only through the session and connect"
	case within(to, "ui") && !within(from, "ui") && from != "internal/cli" && from != "main":
		return "only internal/cli and main open the UI"
	case from == "main" && to != "internal/cli":
		return "main only calls internal/cli"
	}
	return ""
}

// relative is a package's path inside the module; "main" for the root.
func relative(importPath string) string {
	if importPath == module {
		return "main"
	}
	return strings.TrimPrefix(importPath, module+"/")
}

// within reports whether pkg is dir or below it.
func within(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }
