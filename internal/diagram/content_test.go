package diagram

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMermaidMatchesTranscript checks each golden case's Mermaid against
// the transcript it came from, read here on its own: every frame of the
// request (the request, each progress, each cancel, each response or
// error) appears as an arrow, or within a counted run, in the right
// direction; those after the cancel end in a cross, inside the rect of
// the time after the cancel, and nothing else in that rect about the
// request does; a timeout is a rect that says how long, a settle window
// a rect inside the time after the cancel; and nothing else about the
// request is drawn.
func TestMermaidMatchesTranscript(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			tr, o := caseTranscript(t, c)
			l, err := Build(tr, o)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := checkMermaid(Mermaid(l))
			if err != nil {
				t.Fatal(err)
			}
			origin, peer := "mcpoke", "server"
			if o.Incoming {
				origin, peer = peer, origin
			}
			want := framesOf(t, tr, l.ID, o.Incoming)
			got := arrowsOf(doc, l.ID, origin, peer)
			for _, k := range []string{"request", "round", "progress", "progress ignored", "cancel", "answer", "answer ignored"} {
				if got[k] != want[k] {
					t.Errorf("%s: %d in the diagram, %d in the transcript (diagram %v, transcript %v)", k, got[k], want[k], got, want)
				}
			}
			if want["request"] != 1 {
				t.Errorf("the transcript has %d requests with id %s", want["request"], l.ID)
			}
			checkSpans(t, doc, want, o, peer)
		})
	}
}

// checkSpans checks the rects against what the transcript says: the
// time after the cancel when there was one, the timeout its reason
// names, the settle window inside the time after the cancel.
func checkSpans(t *testing.T, doc mermaidDoc, want map[string]int, o Options, peer string) {
	t.Helper()
	after, timeout, settle := -1, -1, -1
	for i, r := range doc.rects {
		switch r.fill {
		case spanFills[SpanAfter]:
			after = i
		case spanFills[SpanTimeout]:
			timeout = i
		case spanFills[SpanSettle]:
			settle = i
		default:
			t.Errorf("a rect of no span: %q", r.fill)
		}
	}
	cancelled := want["cancel"] > 0
	if (after >= 0) != cancelled {
		t.Errorf("rect for the time after the cancel: %v; cancels in the transcript: %d", after >= 0, want["cancel"])
	}
	for _, m := range doc.messages {
		in := len(m.rects) > 0 && m.rects[0] == after && after >= 0
		if m.arrow == "--x" && m.from == peer && !in {
			t.Errorf("ignored %q drawn outside the time after the cancel", m.text)
		}
		if in && m.from == peer && m.arrow != "--x" && (strings.HasPrefix(m.text, "progress") || strings.HasPrefix(m.text, "result") || strings.HasPrefix(m.text, "error")) {
			t.Errorf("%q after the cancel is not drawn ignored", m.text)
		}
	}
	if d, ok := want["timeout"]; ok {
		if timeout < 0 {
			t.Errorf("the request timed out after %dms; no timeout rect", d)
		} else if note := doc.rects[timeout].note; !strings.Contains(note, "timeout "+Human(float64(d))) {
			t.Errorf("the timeout rect says %q, want the timeout, %s", note, Human(float64(d)))
		}
	} else if timeout >= 0 && !o.Live {
		t.Errorf("a timeout rect, %q, for a request that did not time out", doc.rects[timeout].note)
	}
	switch {
	case cancelled && o.Settle > 0 && settle < 0:
		t.Error("no rect for the settle window")
	case settle >= 0 && (!cancelled || o.Settle == 0):
		t.Error("a settle window without a cancel and --settle")
	case settle >= 0 && doc.rects[settle].parent != after:
		t.Error("the settle window is not inside the time after the cancel")
	}
}

// framesOf counts, straight from the transcript, the frames of request
// id by what they are, "ignored" when they came after the first cancel;
// "timeout" is the timeout the first cancel's reason gives, in ms.
func framesOf(t *testing.T, tr Transcript, id string, incoming bool) map[string]int {
	t.Helper()
	originDir, peerDir := "out", "in"
	if incoming {
		originDir, peerDir = peerDir, originDir
	}
	n := map[string]int{}
	cancelled, started, method := false, false, ""
	// A multi round-trip request's retries are the request's too.
	ids, tokens := map[string]bool{id: true}, map[string]bool{}
	for _, it := range tr.Items {
		if it.Dir == "http" && started && !incoming && it.HTTP == "stream of request "+id+" closed by mcpoke" {
			cancelled = true
			n["cancel"]++
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID      json.RawMessage `json:"requestId"`
				Token          json.RawMessage `json:"progressToken"`
				Reason         string          `json:"reason"`
				RequestState   *string         `json:"requestState"`
				InputResponses json.RawMessage `json:"inputResponses"`
				Meta           struct {
					Token json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(it.Msg, &m) != nil {
			continue
		}
		ignored := ""
		if cancelled {
			ignored = " ignored"
		}
		switch {
		case it.Dir == originDir && m.Method != "" && string(m.ID) == id && !started:
			started, method = true, m.Method
			tokens[string(m.Params.Meta.Token)] = true
			n["request"]++
		case !started:
		case it.Dir == originDir && m.Method == method && m.ID != nil && (m.Params.RequestState != nil || m.Params.InputResponses != nil):
			ids[string(m.ID)] = true
			tokens[string(m.Params.Meta.Token)] = true
			n["round"]++
		case it.Dir == originDir && (m.Method == "notifications/cancelled" && ids[string(m.Params.RequestID)] || m.Method == "tasks/cancel"):
			if d, err := time.ParseDuration(strings.TrimSuffix(strings.TrimPrefix(m.Params.Reason, "timeout after "), " (maximum)")); err == nil && !cancelled {
				n["timeout"] = int(d / time.Millisecond)
			}
			cancelled = true
			n["cancel"]++
		case it.Dir == peerDir && m.Method == "notifications/progress" && m.Params.Token != nil && tokens[string(m.Params.Token)]:
			n["progress"+ignored]++
		case it.Dir == peerDir && m.Method == "" && ids[string(m.ID)]:
			n["answer"+ignored]++
		}
	}
	return n
}

var runCountRE = regexp.MustCompile(`^progress ×(\d+)`)

// arrowsOf counts the diagram's arrows the same way, a run as its count.
func arrowsOf(doc mermaidDoc, id, origin, peer string) map[string]int {
	n := map[string]int{}
	ownID := "(id " + mermaidText(id) + ")"
	for _, m := range doc.messages {
		ignored := ""
		if m.arrow == "--x" {
			ignored = " ignored"
		}
		count := 1
		if c := runCountRE.FindStringSubmatch(m.text); c != nil {
			count, _ = strconv.Atoi(c[1])
		}
		switch {
		case m.from == origin && (strings.HasPrefix(m.text, "notifications/cancelled") || strings.HasPrefix(m.text, "tasks/cancel") || strings.HasPrefix(m.text, "HTTP stream of request")):
			n["cancel"]++
		case m.from == origin && strings.Contains(m.text, ", round "):
			n["round"]++
		case m.from == origin && strings.Contains(m.text, ownID):
			n["request"]++
		case m.from == peer && strings.HasPrefix(m.text, "progress"):
			n["progress"+ignored] += count
		case m.from == peer && (strings.HasPrefix(m.text, "result") || strings.HasPrefix(m.text, "error") || strings.HasPrefix(m.text, "duplicate")):
			n["answer"+ignored]++
		}
	}
	return n
}

// TestMermaidCheckerRejects shows the checker failing on each rule, so
// that it passing means something.
func TestMermaidCheckerRejects(t *testing.T) {
	head := "sequenceDiagram\n    participant mcpoke\n    participant server\n"
	for _, bad := range []string{
		"graph TD\n",
		head + "    mcpoke->>server: a; b\n",
		head + "    mcpoke->>server: #x y\n",
		head + "    mcpoke->>server: <b>bold</b>\n",
		head + "    mcpoke->>other: hi\n",
		head + "    Note left of mcpoke,server: two\n",
		head + "    rect rgba(1, 2, 3, 0.1)\n    mcpoke->>server: a\n",
		head + "    end\n",
		head + "    rect red\n    end\n",
		head + "    else\n",
		head + "    mcpoke->>server:\n",
		head + "    mcpoke=>server: hi\n",
		head + "    mcpoke->>server: a\n    participant late\n",
		head + "    autonumber x\n",
	} {
		if _, err := checkMermaid(bad); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
	good := head + "    autonumber\n    Note right of server: r\n    Note over mcpoke,server: #quot;ok#quot; #35;1 #59;\n    rect rgb(1, 2, 3)\n    alt\n    mcpoke->>server: a\n    else\n    server--xmcpoke: b\n    end\n    end\n"
	if _, err := checkMermaid(good); err != nil {
		t.Errorf("rejected good diagram: %v", err)
	}
}
