package diagram

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMermaidMatchesTranscript checks each golden case's Mermaid against
// the transcript it came from, read here on its own: every frame of the
// request (the request, each progress, each cancel, each response or
// error) appears as an arrow, or within a counted run, in the right
// direction; those after the cancel end in a cross; and nothing else
// about the request is drawn.
func TestMermaidMatchesTranscript(t *testing.T) {
	for _, name := range goldenCases {
		t.Run(name, func(t *testing.T) {
			tr := readFile(t, name)
			l, err := Build(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc, err := checkMermaid(Mermaid(l))
			if err != nil {
				t.Fatal(err)
			}
			want := framesOf(t, tr, l.ID)
			got := arrowsOf(doc)
			for _, k := range []string{"request", "progress", "progress ignored", "cancel", "answer", "answer ignored"} {
				if got[k] != want[k] {
					t.Errorf("%s: %d in the diagram, %d in the transcript (diagram %v, transcript %v)", k, got[k], want[k], got, want)
				}
			}
		})
	}
}

// framesOf counts, straight from the transcript, the frames of request
// id by what they are, "ignored" when they came after the first cancel.
func framesOf(t *testing.T, tr Transcript, id string) map[string]int {
	t.Helper()
	n := map[string]int{}
	token, cancelled, started := "", false, false
	for _, it := range tr.Items {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
				Token     json.RawMessage `json:"progressToken"`
				TaskID    string          `json:"taskId"`
				Meta      struct {
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
		case it.Dir == "out" && m.Method != "" && string(m.ID) == id && !started:
			started, token = true, string(m.Params.Meta.Token)
			n["request"]++
		case !started:
		case it.Dir == "out" && (m.Method == "notifications/cancelled" && string(m.Params.RequestID) == id || m.Method == "tasks/cancel"):
			cancelled = true
			n["cancel"]++
		case it.Dir == "in" && m.Method == "notifications/progress" && token != "" && string(m.Params.Token) == token:
			n["progress"+ignored]++
		case it.Dir == "in" && m.Method == "" && string(m.ID) == id:
			n["answer"+ignored]++
		}
	}
	return n
}

var runCountRE = regexp.MustCompile(`^progress ×(\d+)`)

// arrowsOf counts the diagram's arrows the same way, a run as its count.
func arrowsOf(doc mermaidDoc) map[string]int {
	n := map[string]int{}
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
		case m.from == "mcpoke" && strings.HasPrefix(m.text, "tools/call"):
			n["request"]++
		case m.from == "mcpoke" && (strings.HasPrefix(m.text, "notifications/cancelled") || strings.HasPrefix(m.text, "tasks/cancel")):
			n["cancel"]++
		case m.from == "server" && strings.HasPrefix(m.text, "progress"):
			n["progress"+ignored] += count
		case m.from == "server" && (strings.HasPrefix(m.text, "result") || strings.HasPrefix(m.text, "error") || strings.HasPrefix(m.text, "duplicate")):
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
	} {
		if _, err := checkMermaid(bad); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
	good := head + "    Note over mcpoke,server: #quot;ok#quot; #35;1 #59;\n    rect rgb(1, 2, 3)\n    alt\n    mcpoke->>server: a\n    else\n    server--xmcpoke: b\n    end\n    end\n"
	if _, err := checkMermaid(good); err != nil {
		t.Errorf("rejected good diagram: %v", err)
	}
}
