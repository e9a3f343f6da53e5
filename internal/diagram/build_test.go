package diagram

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// readString reads a transcript written inline.
func readString(t *testing.T, s string) Transcript {
	t.Helper()
	tr, err := Read(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The default request is the last tools/call even when it is the first
// request of all.
func TestDefaultRequestFindsTheFirstCall(t *testing.T) {
	reqs := []Request{{ID: "1", Method: "tools/call"}, {ID: "2", Method: "tools/list"}}
	if id, ok := DefaultRequest(reqs); id != "1" || !ok {
		t.Errorf("DefaultRequest = %q, %v; want the tools/call, 1", id, ok)
	}
	reqs = []Request{{ID: "1", Method: "tools/list"}, {ID: "2", Method: "ping"}}
	if id, ok := DefaultRequest(reqs); id != "1" || !ok {
		t.Errorf("DefaultRequest = %q, %v; want the tools/list, 1", id, ok)
	}
}

// A request the transcript does not hold is an error that says so, not
// an empty drawing.
func TestBuildOfAMissingRequestFails(t *testing.T) {
	tr := readString(t, `{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}
{"t":2,"dir":"out","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}}
{"t":3,"dir":"in","msg":{"jsonrpc":"2.0","id":2,"result":{}}}
`)
	for _, o := range []Options{{Request: "7"}, {Request: "2", Incoming: true}} {
		if _, err := Build(tr, o); !errors.Is(err, ErrNoRequest) {
			t.Errorf("Build(%+v): %v, want ErrNoRequest", o, err)
		}
	}
}

// arrowLabels are l's arrows' labels, one a line.
func arrowLabels(l Life) string {
	var b strings.Builder
	for _, a := range l.Arrows {
		b.WriteString(a.Label + "\n")
	}
	return b.String()
}

// A second answer to the request is drawn as a duplicate; the first
// counts.
func TestSecondAnswerIsADuplicate(t *testing.T) {
	tr := readString(t, `{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}
{"t":2,"dir":"in","msg":{"jsonrpc":"2.0","id":1,"result":{}}}
{"t":3,"dir":"in","msg":{"jsonrpc":"2.0","id":1,"result":{"isError":true}}}
`)
	l, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "tools/call a (id 1)\nresult\nduplicate result (isError)\n"
	if got := arrowLabels(l); got != want {
		t.Errorf("arrows:\n%s\nwant:\n%s", got, want)
	}
	if l.Outcome != "completed at +1ms" {
		t.Errorf("outcome %q", l.Outcome)
	}
}

// An input_required result names the inputs it asks for, and only when
// it asks for some.
func TestInputRequiredLabel(t *testing.T) {
	tr := readString(t, `{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}
{"t":2,"dir":"in","msg":{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}}
`)
	l, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.Arrows[1].Label, "result: input required"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
}

// A MaxRun past the fold is capped below it: a run of progress as long
// as the fold is drawn collapsed, as a longer one (which the builder
// folds) is, not one arrow per notification.
func TestMaxRunIsCappedBelowTheFold(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":1}}}}` + "\n")
	for i := range foldAt {
		fmt.Fprintf(&b, `{"t":%d,"dir":"in","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":%d}}}`+"\n", i+2, i)
	}
	l, err := Build(readString(t, b.String()), Options{MaxRun: 10 * foldAt})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Arrows) != 4 || l.Arrows[2].Count != foldAt-2 {
		t.Errorf("%d arrows for a request and %d progress, want the request, the first, a run of %d, the last:\n%s", len(l.Arrows), foldAt, foldAt-2, Text(l, 60))
	}
}

// A live drawing made the moment the settle window ends draws it closed.
func TestSettleWindowClosesOnTime(t *testing.T) {
	tr := readString(t, `{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}
{"t":101,"dir":"out","msg":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}}
`)
	for _, c := range []struct {
		now  float64
		open bool
	}{{1100, true}, {1101, false}, {1102, false}} {
		l, err := Build(tr, Options{Settle: time.Second, Live: true, Now: c.now})
		if err != nil {
			t.Fatal(err)
		}
		s := l.Span(SpanSettle)
		if s == nil || s.Open != c.open || (s.End == "") != c.open {
			t.Errorf("at %v, settle window %+v, want open %v", c.now, s, c.open)
		}
	}
}

// A live drawing made the moment a timeout falls due draws its wait
// closed: the timeout has run out.
func TestTimeoutWaitClosesOnTime(t *testing.T) {
	tr := readString(t, `{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}
`)
	for _, c := range []struct {
		now  float64
		open bool
	}{{500, true}, {501, false}} {
		l, err := Build(tr, Options{Timeout: 500 * time.Millisecond, Live: true, Now: c.now})
		if err != nil {
			t.Fatal(err)
		}
		s := l.Span(SpanTimeout)
		if s == nil || s.Open != c.open || (s.End == "") != c.open {
			t.Errorf("at %v, timeout %+v, want open %v", c.now, s, c.open)
		}
	}
}

// A batch's messages are drawn one by one.
func TestBatchIsDrawnMessageByMessage(t *testing.T) {
	tr := readString(t, `{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"p"}}}}
{"t":2,"dir":"in","msg":[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1,"total":2}},{"jsonrpc":"2.0","id":1,"result":{}}]}
`)
	l, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := arrowLabels(l), "tools/call a (id 1)\nprogress 1/2\nresult\n"; got != want {
		t.Errorf("arrows:\n%s\nwant:\n%s", got, want)
	}
}

// A run of progress is collapsed when it is longer than MaxRun and has a
// middle to collapse, and only then.
func TestRunCollapsesPastMaxRun(t *testing.T) {
	call := func(n int) Transcript {
		var b strings.Builder
		b.WriteString(`{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":1}}}}` + "\n")
		for i := range n {
			fmt.Fprintf(&b, `{"t":%d,"dir":"in","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":%d}}}`+"\n", i+2, i+1)
		}
		return readString(t, b.String())
	}
	for _, c := range []struct {
		progress, maxRun int
		want             string
	}{
		{DefaultMaxRun, 0, "progress 1\nprogress 2\nprogress 3\nprogress 4\nprogress 5\nprogress 6\n"},
		{DefaultMaxRun + 1, 0, "progress 1\nprogress ×5: 2 … 6\nprogress 7\n"},
		{2, 1, "progress 1\nprogress 2\n"},
		{3, 2, "progress 1\nprogress ×1: 2 … 2\nprogress 3\n"},
	} {
		l, err := Build(call(c.progress), Options{MaxRun: c.maxRun})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := arrowLabels(l), "tools/call a (id 1)\n"+c.want; got != want {
			t.Errorf("%d progress, MaxRun %d:\n%s\nwant:\n%s", c.progress, c.maxRun, got, want)
		}
	}
}

// A span's StepClose counts the arrows drawn inside it.
func TestStepCloseCountsTheArrowsInside(t *testing.T) {
	l := Life{
		Arrows: []Arrow{{At: 0}, {At: 5}, {At: 6}, {At: 20}},
		Spans:  []Span{{Kind: SpanAfter, From: 1, To: 10}, {Kind: SpanSettle, From: 30, To: 40}},
	}
	inside := map[SpanKind]int{}
	for _, st := range l.Steps() {
		if st.Kind == StepClose {
			inside[st.Span.Kind] = st.Inside
		}
	}
	if inside[SpanAfter] != 2 || inside[SpanSettle] != 0 {
		t.Errorf("arrows inside: %v, want 2 after the cancel and 0 in the settle window", inside)
	}
}

// A pause of exactly 250ms is drawn as one: the scale starts there.
func TestTextDrawsAPauseFromItsFirstStep(t *testing.T) {
	l := Life{Title: "t", Arrows: []Arrow{{Label: "a", At: 0}, {Label: "b", At: 250}}, Outcome: "o"}
	if got := Text(l, DefaultWidth); !strings.Contains(got, "⋮ 250ms") {
		t.Errorf("no pause of 250ms in\n%s", got)
	}
}

// Read numbers items by their line in the file, counts the lines it
// cannot use, and passes over blank ones.
func TestReadNumbersLinesAndCountsSkipped(t *testing.T) {
	tr := readString(t, `{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}

not a transcript line
{"t":2,"dir":"in","msg":{"jsonrpc":"2.0","id":1,"result":{}}}
`)
	if len(tr.Items) != 2 || tr.Items[0].Line != 1 || tr.Items[1].Line != 4 || tr.Skipped != 1 {
		var lines []int
		for _, it := range tr.Items {
			lines = append(lines, it.Line)
		}
		t.Errorf("items on lines %v, %d skipped; want lines 1 and 4, 1 skipped", lines, tr.Skipped)
	}
}

// A proxy's relay line marks the transcript as relayed; without a time
// it is no transcript line.
func TestReadRelayLine(t *testing.T) {
	tr := readString(t, `{"t":1,"dir":"relay"}`+"\n")
	if !tr.Relayed || tr.Skipped != 0 {
		t.Errorf("relay line: relayed %v, %d skipped", tr.Relayed, tr.Skipped)
	}
	tr = readString(t, `{"dir":"relay"}`+"\n")
	if tr.Relayed || tr.Skipped != 1 {
		t.Errorf("relay line without t: relayed %v, %d skipped", tr.Relayed, tr.Skipped)
	}
}

// A line of maxLineBytes, its newline included, is read; one byte more
// and it is skipped, and the next line still reads. The lines are padded
// with JSON whitespace, generated as read, so the test holds no more
// than the reader's own buffer.
func TestReadBoundsALine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 160 MiB")
	}
	line := func(size int) io.Reader {
		head, tail := `{"t":1,"dir":"stderr"`, "}\n"
		return io.MultiReader(strings.NewReader(head), &spaces{n: size - len(head) - len(tail)}, strings.NewReader(tail))
	}
	tr, err := Read(io.MultiReader(line(maxLineBytes), line(maxLineBytes+1),
		strings.NewReader(`{"t":2,"dir":"stderr","raw":"end"}`+"\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Items) != 2 || tr.Items[0].Line != 1 || tr.Items[1].Raw != "end" || tr.Skipped != 1 {
		t.Errorf("%d items, %d skipped; want the first line and the last, the second skipped", len(tr.Items), tr.Skipped)
	}
}

// spaces reads as n spaces.
type spaces struct{ n int }

func (s *spaces) Read(p []byte) (int, error) {
	if s.n == 0 {
		return 0, io.EOF
	}
	n := min(len(p), s.n)
	for i := range n {
		p[i] = ' '
	}
	s.n -= n
	return n, nil
}
