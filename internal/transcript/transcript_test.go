package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

type line struct {
	T    float64         `json:"t"`
	Dir  string          `json:"dir"`
	Msg  json.RawMessage `json:"msg"`
	Raw  *string         `json:"raw"`
	Note string          `json:"note"`
	Size int             `json:"size"`
}

func TestNotesFollowTheWire(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	w := New(&out, start)
	at := start
	rec := func(dir wire.Direction, kind wire.Kind, data string) {
		at = at.Add(1500 * time.Microsecond)
		w.Observe(wire.Record{At: at, Dir: dir, Kind: kind, Data: []byte(data), Size: len(data)})
	}
	out1 := func(s string) { rec(wire.Out, wire.KindFrame, s) }
	in1 := func(s string) { rec(wire.In, wire.KindFrame, s) }

	out1(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":1},"name":"a"}}`)
	in1(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	in1(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	in1(`{"jsonrpc":"2.0","id":1,"result":{}}`)                                                          // duplicate
	in1(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}`) // after the answer: stray
	out1(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":2},"name":"b"}}`)
	out1(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"x"}}`)
	in1(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}`) // late
	in1(`{"jsonrpc":"2.0","id":2,"result":{}}`)                                                          // late
	in1(`{"jsonrpc":"2.0","id":"2","result":{}}`)                                                        // a string id is another request: stray
	in1(`{"jsonrpc":"2.0","id":9,"error":{"code":1,"message":"m"}}`)                                     // stray
	in1(`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}`)                     // the peer's own request
	in1(`{"not":"jsonrpc"}`)                                                                             // noise
	rec(wire.In, wire.KindNoise, "Server listening\x1b[0m")
	rec(wire.In, wire.KindOversize, `{"jsonrpc":"2.0","id":3,"res`)
	rec(wire.In, wire.KindStderr, "cancel received id=2")

	want := []struct{ dir, note string }{
		{"out", ""}, {"in", ""}, {"in", ""}, {"in", "duplicate"}, {"in", "stray"},
		{"out", ""}, {"out", ""}, {"in", "late"}, {"in", "late"}, {"in", "stray"}, {"in", "stray"},
		{"in", ""}, {"in", "noise"}, {"in", "noise"}, {"in", "noise"}, {"stderr", ""},
	}
	text := out.String()
	sc := bufio.NewScanner(strings.NewReader(text))
	var prev float64
	for i := 0; sc.Scan(); i++ {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d %q: %v", i, sc.Text(), err)
		}
		if i >= len(want) {
			t.Fatalf("extra line %s", sc.Text())
		}
		if l.Dir != want[i].dir || l.Note != want[i].note {
			t.Errorf("line %d %s: dir %q note %q, want %q %q", i, sc.Text(), l.Dir, l.Note, want[i].dir, want[i].note)
		}
		if l.T <= prev {
			t.Errorf("line %d: t %v not after %v", i, l.T, prev)
		}
		prev = l.T
		if (l.Msg == nil) == (l.Raw == nil) {
			t.Errorf("line %d needs exactly one of msg and raw: %s", i, sc.Text())
		}
		if i == 13 && *l.Raw != "Server listening\x1b[0m" {
			t.Errorf("noise raw %q", *l.Raw)
		}
		if i == 14 && l.Size == 0 {
			t.Errorf("oversize line without size: %s", sc.Text())
		}
	}
	if first := strings.SplitN(text, "\n", 2)[0]; !strings.HasPrefix(first, `{"t":1.500,"dir":"out","msg":{"jsonrpc"`) {
		t.Errorf("first line %s", first)
	}
}

func TestBatchTakesFirstNote(t *testing.T) {
	var out bytes.Buffer
	w := New(&out, time.Now())
	w.Observe(wire.Record{At: time.Now(), Dir: wire.Out, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`)})
	w.Observe(wire.Record{At: time.Now(), Dir: wire.In, Data: []byte(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":7,"result":{}}]`)})
	if !strings.Contains(out.String(), `"note":"stray"`) {
		t.Fatalf("batch with a stray response not noted:\n%s", out.String())
	}
}

func TestForgetsOldestPastTheBound(t *testing.T) {
	n := newNotes()
	n.limit = 100
	for i := range n.limit + 10 {
		n.sent([]byte(`{"jsonrpc":"2.0","id":` + itoa(i) + `,"method":"m","params":{"_meta":{"progressToken":` + itoa(i) + `}}}`))
	}
	if len(n.requests) != n.limit || len(n.tokens) != n.limit {
		t.Fatalf("tracking %d requests, %d tokens", len(n.requests), len(n.tokens))
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// The transcript notes requests sent for an undeclared capability as
// forced, and names each inbound frame's violations as the session does.
func TestForcedAndViolations(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	w := New(&out, start)
	rec := func(dir wire.Direction, data string) {
		w.Observe(wire.Record{At: start, Dir: dir, Kind: wire.KindFrame, Data: []byte(data), Size: len(data)})
	}
	rec(wire.Out, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	rec(wire.In, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	rec(wire.Out, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":2},"name":"a"}}`)
	rec(wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":5}}`)
	rec(wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":3}}`)
	rec(wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2}}`)
	rec(wire.In, `[{"jsonrpc":"1.0","id":2,"result":{},"error":{"message":"m"}}]`)
	rec(wire.Out, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)

	want := []struct{ note, violations string }{
		{"", ""}, {"", ""}, {"forced", ""}, {"", ""}, {"", "progress_not_increasing"}, {"", "progress_missing"},
		{"", "batch,jsonrpc_version,result_and_error,malformed_error"}, {"", ""},
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, l := range lines {
		var got struct {
			Note       string   `json:"note"`
			Violations []string `json:"violations"`
		}
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, l)
		}
		if got.Note != want[i].note || strings.Join(got.Violations, ",") != want[i].violations {
			t.Errorf("line %d: note %q violations %v; want %q and %s\n%s", i, got.Note, got.Violations, want[i].note, want[i].violations, l)
		}
	}
}

// A task's own progress after its CreateTaskResult is no violation: the
// token stays valid for the task's life (MCP 2025-11-25). Once the task
// reached a terminal status, progress on it is.
func TestTaskProgressAfterCreateTaskResult(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	w := New(&out, start)
	rec := func(dir wire.Direction, data string) {
		w.Observe(wire.Record{At: start, Dir: dir, Kind: wire.KindFrame, Data: []byte(data), Size: len(data)})
	}
	rec(wire.Out, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":7},"name":"a","task":{}}}`)
	rec(wire.In, `{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t1","status":"working","createdAt":"2026-01-02T03:04:05Z"}}}`)
	rec(wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`)
	rec(wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":2}}`)
	rec(wire.In, `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"completed"}}`)
	rec(wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":3}}`)
	want := []struct{ note, violations string }{
		{"", ""}, {"", ""}, {"", ""}, {"", ""}, {"", ""}, {"stray", "progress_after_response"},
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, l := range lines {
		var got struct {
			Note       string   `json:"note"`
			Violations []string `json:"violations"`
		}
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, l)
		}
		if got.Note != want[i].note || strings.Join(got.Violations, ",") != want[i].violations {
			t.Errorf("line %d: note %q violations %v; want %q and %s\n%s", i, got.Note, got.Violations, want[i].note, want[i].violations, l)
		}
	}
}

// Over HTTP a proxy's host sessions (s1, s2) may use the same ids and
// tokens: s1's cancel of its request 1 says nothing of s2's request 1,
// whose answer is no more late than s2's progress is, and an id only
// s1 sent is stray in s2.
func TestNotesKeepHostSessionsApart(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	w := New(&out, start)
	at := start
	rec := func(sess string, dir wire.Direction, data string) {
		at = at.Add(time.Millisecond)
		w.Observe(wire.Record{At: at, Dir: dir, Kind: wire.KindFrame, Data: []byte(data), Size: len(data), Session: sess})
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","_meta":{"progressToken":"t"}}}`
	rec("s1", wire.Out, call)
	rec("s2", wire.Out, call)
	rec("s1", wire.Out, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	rec("s1", wire.Out, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	rec("s2", wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`)
	rec("s2", wire.In, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	rec("s1", wire.In, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	rec("s2", wire.In, `{"jsonrpc":"2.0","id":5,"result":{}}`)
	rec("s1", wire.In, `{"jsonrpc":"2.0","id":5,"result":{}}`)
	want := []string{"", "", "", "", "", "", "late", "stray", ""}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for i := 0; sc.Scan(); i++ {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || i >= len(want) {
			t.Fatalf("line %d %s: %v", i, sc.Text(), err)
		}
		if l.Note != want[i] {
			t.Errorf("line %d %s: note %q, want %q", i, sc.Text(), l.Note, want[i])
		}
	}
}
