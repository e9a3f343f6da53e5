package diagram

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// goldenCase is one drawing checked against its golden files: a
// transcript, the options it is drawn with, and for a live drawing the
// moment, after the request, it is drawn at (the transcript is cut
// there).
type goldenCase struct {
	name, file string
	o          Options
	liveAt     float64
}

// goldenCases are transcripts of real runs (the demo server and the npm
// reference server), and hand-written ones for what no peer here does
// (a task cancel, a server-cancelled elicitation, a stream closed over
// HTTP) or should do (hostile text).
var goldenCases = []goldenCase{
	{name: "cancelled_late_progress"}, // server-everything keeps sending progress after the cancel
	{name: "late_response"},           // the demo's stubborn answers anyway
	{name: "failed_call"},             // the demo's fail: an isError result
	{name: "progress_flood"},          // 200 progress notifications, collapsed into a run
	{name: "task_cancel"},             // tasks/get, tasks/cancel, and an elicitation the server cancels
	{name: "hostile"},                 // escapes, Mermaid syntax and bidi in server text
	{name: "timed_out"},               // --timeout: late progress, then a late error
	// The settle window, and how long call listened for late traffic.
	{name: "late_response_settle", file: "late_response", o: Options{Settle: time.Second, WaitLate: 2 * time.Second}},
	// The server cancels its own elicitation: the call's view, and the
	// elicitation's own, mcpoke's answer never sent.
	{name: "server_cancelled_elicitation"},
	{name: "server_cancelled_elicitation_incoming", file: "server_cancelled_elicitation", o: Options{Request: "0", Incoming: true}},
	// 2026-07-28 over Streamable HTTP: closing the stream is the cancel.
	{name: "http_stream_closed"},
	// 2026-07-28's multi round-trip request: the server asks for input,
	// mcpoke retries with it, and the retry is answered.
	{name: "mrtr"},
	// Drawn live, as the TUI does: in flight with its timeout running,
	// then cancelling within the settle window.
	{name: "live_pending", file: "cancelled_late_progress", o: Options{Timeout: 2 * time.Second}, liveAt: 1400},
	{name: "live_cancelling", file: "cancelled_late_progress", o: Options{Settle: time.Second}, liveAt: 2200},
}

func (c goldenCase) transcript() string {
	if c.file != "" {
		return c.file
	}
	return c.name
}

// textWidths are the sizes the text diagram is checked at: the default,
// the narrowest two-column one, and the list it becomes below that.
var textWidths = []int{DefaultWidth, minTwoColumns, 32}

// TestGolden compares both renderings of each transcript with
// testdata/TestGolden/<case>/<format>.golden. After a deliberate change,
// rewrite them with go test ./internal/diagram/ -update and read the diff.
func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			l := buildCase(t, c)
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

// buildCase draws c; a live case from its transcript cut at its moment.
func buildCase(t *testing.T, c goldenCase) Life {
	t.Helper()
	tr, o := caseTranscript(t, c)
	l, err := Build(tr, o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// caseTranscript is c's transcript, cut for a live case, and the options
// to draw it with.
func caseTranscript(t *testing.T, c goldenCase) (Transcript, Options) {
	t.Helper()
	tr := readFile(t, c.transcript())
	o := c.o
	if c.liveAt > 0 {
		if o.Request == "" {
			o.Request, _ = DefaultRequest(Requests(tr))
		}
		f := NewFollower(Options{Request: o.Request, Incoming: o.Incoming})
		var cut []Item
		for _, it := range tr.Items {
			f.Add(it)
			if f.Found() && it.T > f.Start()+c.liveAt {
				break
			}
			cut = append(cut, it)
		}
		tr.Items = cut
		o.Live, o.Now = true, f.Start()+c.liveAt
	}
	return tr, o
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
