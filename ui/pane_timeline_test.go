package ui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// timelineCase is a timeline drawn from hand-written wire records (the
// lines of testdata/timeline/<file>.ndjson), for the request with id in
// the state the session gave it, at the moment at ms into the
// transcript: a live request is drawn with only what had come by then.
type timelineCase struct {
	name, file string
	id         string // JSON text
	incoming   bool
	state      session.State
	timeout    time.Duration
	at         float64
	// With spans set (even empty), the UI has a receiver
	// (--otlp-receive) that got these spans of the request's trace; the
	// cancel was sent at cancelAt ms.
	spans    []otlprecv.Span
	cancelAt float64
}

// timelineTrace is the traceparent of the cases with server spans.
var timelineTrace = session.TraceParent{TraceID: [16]byte{0xa2, 0x29, 0xf2, 0xd3, 15: 1}, SpanID: [8]byte{0xb7, 7: 2}}

// spanAt is a server span from a ms to b ms into the transcript.
func spanAt(name, service string, a, b float64, status, msg string, events ...string) otlprecv.Span {
	start := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	at := func(ms float64) time.Time { return start.Add(time.Duration(ms * float64(time.Millisecond))) }
	sp := otlprecv.Span{TraceID: timelineTrace.TraceIDString(), SpanID: "00000000000000aa", ParentSpanID: timelineTrace.String()[36:52],
		Name: name, Service: service, Start: at(a), End: at(b), Status: status, StatusMessage: msg}
	for _, ev := range events {
		sp.Events = append(sp.Events, otlprecv.Event{Name: ev, At: at(b)})
	}
	return sp
}

var timelineCases = []timelineCase{
	// server-everything: progress goes on after the cancel.
	{name: "cancelled_late_progress", id: "3", state: session.Cancelled, at: 6000},
	// The demo's stubborn answers anyway.
	{name: "late_response", id: "3", state: session.Cancelled, at: 2000},
	// --timeout: the wait, the cancel it sent, late progress and error.
	{name: "timed_out", id: "3", state: session.TimedOut, at: 1100},
	// tasks/get, tasks/cancel and its answer, a status notification.
	{name: "task_cancel", id: `"q-7"`, state: session.Cancelled, at: 1400},
	// The server cancels its elicitation: the call's view, and the
	// elicitation's own row.
	{name: "elicitation_call", file: "server_cancelled_elicitation", id: "3", state: session.Completed, at: 5100},
	{name: "elicitation_incoming", file: "server_cancelled_elicitation", id: "0", incoming: true, state: session.Cancelled, at: 5100},
	// 2026-07-28 over HTTP: closing the stream is the cancel.
	{name: "http_stream_closed", id: "2", state: session.Cancelled, at: 3300},
	// 2026-07-28's multi round-trip request: input required, the retry.
	{name: "mrtr", id: "2", state: session.Completed, at: 4000},
	// Live: in flight with the timeout running, then cancelling within
	// the settle window, late progress already ignored.
	{name: "live_pending", file: "cancelled_late_progress", id: "3", state: session.Pending, timeout: time.Minute, at: 1800},
	{name: "live_cancelling", file: "cancelled_late_progress", id: "3", state: session.Cancelling, timeout: time.Minute, at: 2600},
	// Escapes, bidi and Mermaid syntax in the server's text.
	{name: "hostile", id: `"3"`, state: session.Cancelled, at: 10},
	// --otlp-receive: the server's span ended at the cancel; another
	// ran on after it (with hostile text); none came yet.
	{name: "server_span_at_cancel", file: "http_stream_closed", id: "2", state: session.Cancelled, at: 3300, cancelAt: 1200,
		spans: []otlprecv.Span{spanAt("tools/call slow", "streamy", 11, 1201.3, "error", "cancelled", "work stopped")}},
	{name: "server_span_after_cancel", file: "cancelled_late_progress", id: "3", state: session.Cancelled, at: 6000, cancelAt: 1863.531,
		spans: []otlprecv.Span{spanAt("tools/call trigger-long-running-operation", "everything", 362, 5371, "", ""),
			spanAt("db \x1b]0;pwned\x07query\u202e", "ev\x1b[31mil", 400, 5300, "ok", "\x1b]52;c;aGk=\x07done")}},
	{name: "server_span_none", file: "http_stream_closed", id: "2", state: session.Cancelled, at: 3300, cancelAt: 1200, spans: []otlprecv.Span{}},
	// A flood: the first spans and events are drawn, the rest counted.
	{name: "server_span_flood", file: "http_stream_closed", id: "2", state: session.Cancelled, at: 3300, cancelAt: 1200, spans: spanFlood()},
}

// spanFlood is 25 spans of one trace, the first with 8 events.
func spanFlood() []otlprecv.Span {
	var spans []otlprecv.Span
	for i := range 25 {
		spans = append(spans, spanAt(fmt.Sprintf("step %d", 25-i), "streamy", float64(100+40*(25-i)), 1201, "", ""))
	}
	spans[24].Events = nil
	for i := range 8 {
		spans[24].Events = append(spans[24].Events, otlprecv.Event{Name: fmt.Sprintf("event %d", i), At: spans[24].Start})
	}
	return spans
}

// timelineWidths are the terminal widths the goldens are drawn at: the
// timeline beside the tools, then in the whole width.
var timelineWidths = []int{120, 60, 40}

// TestTimelineGolden draws each case at each width and compares it with
// testdata/TestTimelineGolden/<case>/w<width>.golden (styles stripped:
// the glyphs and words say it all without colour, as with NO_COLOR).
// go test ./ui/ -run TestTimelineGolden -update rewrites them.
func TestTimelineGolden(t *testing.T) {
	for _, c := range timelineCases {
		t.Run(c.name, func(t *testing.T) {
			for _, w := range timelineWidths {
				out := drawTimeline(t, c, w)
				t.Run("w"+strconv.Itoa(w), func(t *testing.T) { golden.RequireEqual(t, out) })
			}
		})
	}
}

// drawTimeline renders c on a terminal w wide, the pane as tall as its
// content, without styles.
func drawTimeline(t *testing.T, c timelineCase, w int) string {
	t.Helper()
	tl, start := timelineOf(t, c)
	pw := computeLayout(w, 30, 1, 1).timeline.w
	tl.c.Now = func() time.Time { return start.Add(time.Duration(c.at * float64(time.Millisecond))) }
	tl.SetSize(pw, 200)
	tl.build()
	tl.SetSize(pw, len(tl.lines)+1)
	styled := tl.View()
	out := ansi.Strip(styled)
	for i, line := range strings.Split(out, "\n") {
		if got := ansi.StringWidth(line); got != pw {
			t.Errorf("width %d: line %d is %d wide, not the pane's %d: %q", w, i+1, got, pw, line)
		}
		for _, r := range line {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x202e || r == 0x200b {
				t.Errorf("width %d: line %d holds %U: %q", w, i+1, r, line)
			}
		}
	}
	// Only the styles' own sequences reach the terminal: no OSC, no
	// cursor movement, nothing the server wrote.
	if strings.Contains(styled, "\x1b]") || strings.Contains(styled, "\x07") || strings.Contains(styled, "[2J") {
		t.Errorf("width %d: a control sequence in the styled timeline: %q", w, styled)
	}
	return out + "\n"
}

// timelineOf is a timeline pane following c's request over the wire
// log of c's transcript, cut at c.at.
func timelineOf(t *testing.T, c timelineCase) (*timeline, time.Time) {
	t.Helper()
	file := c.file
	if file == "" {
		file = c.name
	}
	f, err := os.Open(filepath.Join("testdata", "timeline", file+".ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	cm := &common{Styles: newStyles(true), Keys: defaultKeyMap(), Now: func() time.Time { return start }}
	wl := newWireLog(cm)
	wl.Reset(start)
	row := &rows.Row{ID: mustID(t, c.id), Incoming: c.incoming, State: c.state, Timeout: c.timeout}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			T    float64         `json:"t"`
			Dir  string          `json:"dir"`
			Msg  json.RawMessage `json:"msg"`
			HTTP string          `json:"http"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.T > c.at {
			continue
		}
		r := wire.Record{At: start.Add(time.Duration(l.T * float64(time.Millisecond))), Dir: wire.In, Kind: wire.KindFrame, Data: l.Msg}
		switch l.Dir {
		case "out":
			r.Dir = wire.Out
		case "http":
			r.Kind, r.Data = wire.KindHTTP, []byte(l.HTTP)
		case "in":
		default:
			continue
		}
		r.Size = len(r.Data)
		if method, tool, ok := requestLine(l.Msg, c.id); ok && row.Started.IsZero() {
			row.Started, row.Method, row.Tool = r.At, method, tool
		}
		wl.Add([]wire.Record{r}, 0)
	}
	if row.Started.IsZero() {
		t.Fatalf("no request %s in %s", c.id, file)
	}
	tl := newTimeline(cm, wl, settleWindow(0))
	if c.spans != nil {
		row.Trace = &timelineTrace
		sent := start.Add(time.Duration(c.cancelAt * float64(time.Millisecond)))
		row.Cancel = &rows.Cancel{At: sent, SentAt: sent}
		tl.serverSpans = func(id string) []otlprecv.Span {
			if id != timelineTrace.TraceIDString() {
				t.Errorf("spans asked for trace %s, not the request's %s", id, timelineTrace.TraceIDString())
			}
			return c.spans
		}
	}
	tl.SetRow(row)
	return tl, start
}

// requestLine reads the method and tool of the request with id.
func requestLine(msg json.RawMessage, id string) (method, tool string, ok bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method == "" || string(m.ID) != id {
		return "", "", false
	}
	return m.Method, m.Params.Name, true
}

func mustID(t *testing.T, raw string) session.ID {
	t.Helper()
	id, err := session.ParseID([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return id
}
