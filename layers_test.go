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
	ImportPath   string
	Imports      []string // non-test imports
	TestImports  []string // of the package's own _test files
	XTestImports []string // of its package _test files
}

// testSupport are the packages made for tests: any test may import them.
var testSupport = []string{"internal/buffertest", "internal/clocktest", "internal/ptytest", "internal/transporttest"}

// TestLayers keeps the arrows of the design pointing down: transport
// knows only the wire record (and the JSON-scanner leaf), session only transport (and the wire
// record, clock and JSON-scanner leaves), the UI never the transport, the UI's row
// model (ui/rows) neither the screen nor a terminal library, and only
// the CLI and main open the UI; main calls only the CLI. Tests keep the same
// arrows, except that they may use the test-support packages.
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
		{ImportPath: m("transport"), Imports: []string{"os", m("internal/wire"), m("internal/termtext")}},
		{ImportPath: m("session"), Imports: []string{m("transport"), m("internal/wire"), m("internal/clock"), m("internal/mcp")},
			TestImports: []string{m("internal/clocktest"), m("internal/transporttest")}},
		{ImportPath: m("ui"), Imports: []string{m("session"), m("transport")}},
		{ImportPath: m("internal/demo"), Imports: []string{m("ui")}},
		{ImportPath: m("internal/cli"), Imports: []string{m("ui")}},
		{ImportPath: module, Imports: []string{m("internal/cli"), m("transport")}},
		{ImportPath: m("ui/e2e"), TestImports: []string{m("internal/transporttest"), m("transport")}},
		{ImportPath: m("session"), XTestImports: []string{m("internal/connect")}},
		{ImportPath: m("ui/rows"), Imports: []string{"time", m("session"), "charm.land/bubbletea/v2", m("ui"), m("ui/rows/x")},
			TestImports: []string{"github.com/charmbracelet/x/exp/teatest/v2"}},
		{ImportPath: m("ui/rows/x"), Imports: []string{"charm.land/lipgloss/v2"}},
		{ImportPath: m("ui"), Imports: []string{m("ui/rows"), "charm.land/bubbletea/v2"}},
	}
	got := layerViolations(pkgs)
	want := []string{
		"transport imports internal/termtext",
		"session imports internal/mcp",
		"ui imports transport",
		"internal/demo imports ui",
		"main imports transport",
		"ui/e2e tests import transport",
		"session tests import internal/connect",
		"ui/rows imports charm.land/bubbletea/v2",
		"ui/rows imports ui:",
		"ui/rows tests import github.com/charmbracelet/x/exp/teatest/v2",
		"ui/rows/x imports charm.land/lipgloss/v2",
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
		check := func(imports []string, verb string, test bool) {
			for _, imp := range imports {
				to, ours := strings.CutPrefix(imp, module+"/")
				if !ours {
					if why := brokenOutside(from, imp); why != "" {
						out = append(out, from+verb+imp+": "+why)
					}
					continue
				}
				if test && slices.Contains(testSupport, to) {
					continue
				}
				if why := brokenRule(from, to); why != "" {
					out = append(out, from+verb+to+": "+why)
				}
			}
		}
		check(p.Imports, " imports ", false)
		check(slices.Concat(p.TestImports, p.XTestImports), " tests import ", true)
	}
	return out
}

// brokenRule says which rule an import from one package to another
// (paths relative to the module, "main" for the root) breaks, or "".
func brokenRule(from, to string) string {
	switch {
	case within(from, "transport") && !within(to, "transport") && to != "internal/wire" && to != "internal/jsonscan":
		return "transport moves bytes; it may import only internal/wire and internal/jsonscan"
	case within(from, "session") && !within(to, "session") &&
		!within(to, "transport") && to != "internal/wire" && to != "internal/clock" && to != "internal/jsonscan":
		return "session may import only transport, internal/wire, internal/clock and internal/jsonscan"
	case within(from, "ui/rows") && within(to, "ui") && !within(to, "ui/rows"):
		return "ui/rows is the model the screen shows; it never reaches up into the screen"
	case within(from, "ui") && within(to, "transport"):
		return "the UI reaches the wire only through the session and connect"
	case within(to, "ui") && !within(from, "ui") && from != "internal/cli" && from != "main":
		return "only internal/cli and main open the UI"
	case from == "main" && to != "internal/cli":
		return "main only calls internal/cli"
	}
	return ""
}

// screenLibraries are the terminal libraries: Bubble Tea, Lip Gloss,
// Bubbles and the rest of Charm's.
var screenLibraries = []string{"charm.land/", "github.com/charmbracelet/"}

// brokenOutside says which rule an import of a package from outside the
// module breaks, or "": the row model (ui/rows) is plain Go, testable
// without a terminal.
func brokenOutside(from, imp string) string {
	if within(from, "ui/rows") && slices.ContainsFunc(screenLibraries, func(p string) bool { return strings.HasPrefix(imp, p) }) {
		return "ui/rows holds no Bubble Tea or other screen library: the screen (ui) wraps it"
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
