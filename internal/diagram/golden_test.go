package diagram

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// goldenCases are transcripts of real runs (the demo server and the npm
// reference server), and hand-written ones for what no peer here does
// (a task cancel with a server-cancelled elicitation) or should do
// (hostile text).
var goldenCases = []string{
	"cancelled_late_progress", // server-everything keeps sending progress after the cancel
	"late_response",           // the demo's stubborn answers anyway
	"failed_call",             // the demo's fail: an isError result
	"progress_flood",          // 200 progress notifications, collapsed into a run
	"task_cancel",             // tasks/cancel, and an elicitation the server cancels
	"hostile",                 // escapes, Mermaid syntax and bidi in server text
	"timed_out",               // --timeout: late progress, then a late error
}

// textWidths are the sizes the text diagram is checked at: the default,
// the narrowest two-column one, and the list it becomes below that.
var textWidths = []int{DefaultWidth, minTwoColumns, 32}

// TestGolden compares both renderings of each transcript with
// testdata/TestGolden/<case>/<format>.golden. After a deliberate change,
// rewrite them with go test ./internal/diagram/ -update and read the diff.
func TestGolden(t *testing.T) {
	for _, name := range goldenCases {
		t.Run(name, func(t *testing.T) {
			l := buildFile(t, name)
			m := Mermaid(l)
			t.Run("mermaid", func(t *testing.T) { golden.RequireEqual(t, m) })
			for _, w := range textWidths {
				out := Text(l, w)
				t.Run("text"+strconv.Itoa(w), func(t *testing.T) { golden.RequireEqual(t, out) })
				checkTextFits(t, out, w)
			}
			if _, err := checkMermaid(m); err != nil {
				t.Errorf("invalid Mermaid: %v\n%s", err, m)
			}
		})
	}
}

func buildFile(t *testing.T, name string) Life {
	t.Helper()
	tr := readFile(t, name)
	l, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func readFile(t *testing.T, name string) Transcript {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// checkTextFits fails when a line is wider than width or holds anything
// a terminal would act on.
func checkTextFits(t *testing.T, out string, width int) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("invalid UTF-8 in\n%s", out)
	}
	for i, line := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(line); w > width {
			t.Errorf("width %d: line %d is %d wide: %q", width, i+1, w, line)
		}
		for _, r := range line {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x202e || r == 0x200b {
				t.Errorf("width %d: line %d holds %U: %q", width, i+1, r, line)
			}
		}
	}
}
