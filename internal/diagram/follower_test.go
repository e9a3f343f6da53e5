package diagram

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transcript"
	"github.com/mcpoke/mcpoke/internal/wire"
)

// A Follower fed one item at a time, and drawn after each, ends with
// the drawing Build makes of the whole transcript: the TUI's live view
// and the headless diagram agree.
func TestFollowerDrawsWhatBuildDraws(t *testing.T) {
	for _, c := range goldenCases {
		if c.liveAt > 0 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			tr, o := caseTranscript(t, c)
			want, err := Build(tr, o)
			if err != nil {
				t.Fatal(err)
			}
			if o.Request == "" {
				o.Request, _ = DefaultRequest(Requests(tr))
			}
			f := NewFollower(o)
			for _, it := range tr.Items {
				f.Add(it)
				f.Life(o) // drawing midway changes nothing
			}
			got, ok := f.Life(o)
			if !ok {
				t.Fatal("the follower never saw the request")
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("follower:\n%s\nBuild:\n%s", Text(got, 60), Text(want, 60))
			}
		})
	}
}

// ItemOf makes of a tap record the item the transcript writer's line
// reads back as, so the TUI draws what mcpoke diagram would.
func TestItemOfIsTheTranscriptsItem(t *testing.T) {
	start := time.Now()
	recs := []wire.Record{
		{Dir: wire.Out, Kind: wire.KindFrame, Data: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}`)},
		{Dir: wire.In, Kind: wire.KindHTTP, Data: []byte("POST tools/call id 3 → 200 OK text/event-stream")},
		{Dir: wire.In, Kind: wire.KindFrame, Data: []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1}}`)},
		{Dir: wire.In, Kind: wire.KindStderr, Data: []byte("log line")},
		{Dir: wire.In, Kind: wire.KindNoise, Data: []byte("Listening")},
		{Dir: wire.In, Kind: wire.KindHTTP, Data: []byte("stream of request 3 closed by mcpoke")},
		{Dir: wire.In, Kind: wire.KindFrame, Data: []byte(`{"jsonrpc":"2.0","id":3,"result":{}}`)},
	}
	var buf bytes.Buffer
	w := transcript.New(&buf, start)
	var want []Item
	for i := range recs {
		recs[i].At = start.Add(time.Duration(i)*1234567*time.Nanosecond + 7)
		recs[i].Size = len(recs[i].Data)
		w.Observe(recs[i])
		if it, ok := ItemOf(start, recs[i], i+1); ok {
			want = append(want, it)
		}
	}
	tr, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var got []Item
	for _, it := range tr.Items {
		if it.Dir == "stderr" || it.Note == "noise" {
			continue
		}
		got = append(got, it)
	}
	if len(got) != len(want) {
		t.Fatalf("%d items from the transcript, %d from ItemOf", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.T != w.T || g.Dir != w.Dir || g.HTTP != w.HTTP || !bytes.Equal(g.Msg, w.Msg) {
			t.Errorf("item %d: transcript %+v, ItemOf %+v", i, g, w)
		}
	}
}

// mcpoke answering a server request the server had cancelled is drawn
// as traffic the server ignores, in the request's view and the call's.
func TestReplyAfterTheServersCancelIsIgnored(t *testing.T) {
	tr, err := Read(strings.NewReader(`{"t":1,"dir":"out","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"book"}}}
{"t":2,"dir":"in","msg":{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"How many?"}}}
{"t":500,"dir":"in","msg":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}}
{"t":900,"dir":"out","msg":{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"n":2}}}}
{"t":950,"dir":"in","msg":{"jsonrpc":"2.0","id":3,"result":{"content":[]}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	l, err := Build(tr, Options{Request: "0", Incoming: true})
	if err != nil {
		t.Fatal(err)
	}
	last := l.Arrows[len(l.Arrows)-1]
	if last.From != Client || !last.Ignored || last.Label != "result: accept · ignored (cancel +400ms)" {
		t.Errorf("mcpoke's late answer: %+v", last)
	}
	if want := "cancelled by the server at +498ms · mcpoke answered anyway, 400ms after the cancel"; l.Outcome != want {
		t.Errorf("outcome %q, want %q", l.Outcome, want)
	}
	call, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := Text(call, 120); !strings.Contains(got, "result: accept (id 0) · after its cancel (+400ms)") || !strings.Contains(got, "completed at +949ms") {
		t.Errorf("the call's view:\n%s", got)
	}
}

// Steps nests spans whatever the times: each arrow comes once, in
// order, and every span opens once and closes once, inner spans first.
func TestStepsNestWhateverTheTimes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var l Life
		for range r.IntN(8) {
			l.Arrows = append(l.Arrows, Arrow{At: float64(r.IntN(10)), Kind: Kind(r.IntN(int(KindTaskStatus) + 1))})
		}
		for range r.IntN(4) {
			from := float64(r.IntN(10))
			l.Spans = append(l.Spans, Span{Kind: SpanKind(r.IntN(3)), From: from, To: from + float64(r.IntN(6)-1)})
		}
		var stack []*Span
		arrows := 0
		opened := map[*Span]bool{}
		for _, st := range l.Steps() {
			switch st.Kind {
			case StepArrow:
				if st.Arrow != &l.Arrows[arrows] {
					t.Fatalf("arrow %d out of order in %+v", arrows, l)
				}
				arrows++
			case StepOpen:
				if opened[st.Span] {
					t.Fatalf("span opened twice in %+v", l)
				}
				opened[st.Span] = true
				stack = append(stack, st.Span)
			case StepClose:
				if len(stack) == 0 || stack[len(stack)-1] != st.Span {
					t.Fatalf("span closed out of order in %+v", l)
				}
				stack = stack[:len(stack)-1]
			}
		}
		if arrows != len(l.Arrows) || len(stack) != 0 || len(opened) != len(l.Spans) {
			t.Fatalf("%d of %d arrows, %d spans left open, %d of %d opened: %+v", arrows, len(l.Arrows), len(stack), len(opened), len(l.Spans), l)
		}
	}
}

// Folding a long run of progress while it is read, which bounds what a
// follower keeps, draws exactly what reading it whole draws (for runs
// drawn whole up to fewer notifications than the fold keeps).
func TestFoldingDrawsTheSame(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			tr, o := caseTranscript(t, c)
			if o.Request == "" {
				o.Request, _ = DefaultRequest(Requests(tr))
			}
			draw := func(foldAt int) (Life, int) {
				f := NewFollower(o)
				f.b.foldAt = foldAt
				f.Add(tr.Items...)
				l, _ := f.Life(o)
				return l, len(f.b.arrows)
			}
			whole, n := draw(1 << 30)
			for _, at := range []int{DefaultMaxRun + 1, DefaultMaxRun + 2, 20} {
				folded, kept := draw(at)
				if !reflect.DeepEqual(folded, whole) {
					t.Errorf("folded at %d:\n%s\nwhole:\n%s", at, Text(folded, 60), Text(whole, 60))
				}
				if c.name == "progress_flood" && kept > at+8 {
					t.Errorf("folded at %d, the follower keeps %d arrows of %d", at, kept, n)
				}
			}
		})
	}
}
