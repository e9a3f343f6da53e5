//go:build linux

package proxy

import (
	"bufio"
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/wire"
)

func init() {
	fakeModes["demo"] = func() { demo.Serve(os.Stdin, os.Stdout, io.Discard) }
}

// scriptedHost drives a relay as a host would: it writes lines and waits
// for the server's answers.
type scriptedHost struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
}

func (h *scriptedHost) send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatalf("host write: %v", err)
	}
}

// waitFor waits for a line from the server that holds want.
func (h *scriptedHost) waitFor(want string) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-h.lines:
			if !ok {
				h.t.Fatalf("the server's output ended before a line with %s", want)
			}
			if strings.Contains(line, want) {
				return
			}
		case <-deadline:
			h.t.Fatalf("no line with %s from the server within 10s", want)
		}
	}
}

func TestTableFollowsTheHostsRequestsThroughTheDemo(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	host := &scriptedHost{t: t, in: inW, lines: make(chan string, 1024)}
	go func() {
		defer close(host.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			host.lines <- sc.Text()
		}
		io.Copy(io.Discard, outR)
	}()
	table := NewTable()
	rec := NewRecorder()
	rec.Observe(table.Observe)
	done := make(chan int, 1)
	go func() {
		code, err := RunStdio(context.Background(), StdioOptions{
			Command: os.Args[0], Env: []string{fakeServerEnv + "=demo"},
			HostIn: inR, HostOut: outW, HostErr: io.Discard,
			CloseGrace: 200 * time.Millisecond, Recorder: rec,
		})
		if err != nil {
			t.Errorf("RunStdio: %v", err)
		}
		outW.Close()
		done <- code
	}()

	host.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"scripted","version":"1"}}}`)
	host.waitFor(`"id":1`)
	host.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	host.send(`{"jsonrpc":"2.0","id":"2","method":"tools/call","params":{"name":"stubborn","arguments":{"seconds":0.3},"_meta":{"progressToken":"p2"}}}`)
	host.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"2","reason":"user pressed stop"}}`)
	host.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	host.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"fail","arguments":{"mode":"rpc-error"}}}`)
	host.waitFor(`"id":"2"`) // the stubborn tool's late answer
	host.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30,"steps":300},"_meta":{"progressToken":4}}}`)
	host.waitFor(`"progressToken":4`)
	inW.Close() // the host goes without cancelling 4
	select {
	case <-done:
	case <-time.After(testDeadline):
		t.Fatal("the relay did not end after the host closed its input")
	}
	rec.Close()

	byID := map[string]Row{}
	for _, r := range table.Rows() {
		byID[r.ID] = r
	}
	check := func(id string, state State, method string) Row {
		t.Helper()
		r, ok := byID[id]
		if !ok {
			t.Fatalf("no row for the host's request %s; rows: %+v", id, table.Rows())
		}
		if r.State != state || r.Method != method || r.From != wire.Out {
			t.Errorf("request %s: %s %s from %v, want %s %s from the host", id, r.Method, r.State, r.From, method, state)
		}
		return r
	}
	check("1", Answered, "initialize")
	late := check(`"2"`, Late, "tools/call")
	if late.CancelReason != "user pressed stop" || late.LateBy <= 0 {
		t.Errorf("late request: reason %q, late by %v; want the host's reason and a positive delay", late.CancelReason, late.LateBy)
	}
	check("3", Answered, "tools/call")
	check("5", Failed, "tools/call")
	gone := check("4", Abandoned, "tools/call")
	if gone.Progress < 1 {
		t.Errorf("the abandoned request had %d progress notifications, want at least the one waited for", gone.Progress)
	}
	if _, ok := byID["2"]; ok {
		t.Errorf(`a row for id 2 as a number: the host's id was the string "2"`)
	}
}

func TestTableKeepsOpenRequestsAndBoundsEndedOnes(t *testing.T) {
	table := NewTable()
	at := time.Now()
	frame := func(dir wire.Direction, s string) {
		table.Observe(wire.Record{At: at, Dir: dir, Kind: wire.KindFrame, Data: []byte(s)})
	}
	frame(wire.Out, `{"jsonrpc":"2.0","id":"open","method":"tools/call"}`)
	frame(wire.In, `{"jsonrpc":"2.0","id":"srv","method":"roots/list"}`)
	for i := range 3 * maxEndedRows {
		id := `"r` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strconv.Itoa(i) + `"`
		frame(wire.Out, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
		frame(wire.In, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
	}
	frame(wire.Out, `{"jsonrpc":"2.0","id":"srv","result":{"roots":[]}}`)
	rows := table.Rows()
	if len(rows) > maxEndedRows+maxEndedRows/4+2 {
		t.Errorf("%d rows kept, want at most %d ended plus the open one", len(rows), maxEndedRows+maxEndedRows/4)
	}
	if rows[0].ID != `"open"` || rows[0].State != Pending {
		t.Errorf("first row %+v, want the open request, kept", rows[0])
	}
	if rows[1].ID != `"srv"` || rows[1].From != wire.In || rows[1].State != Answered {
		t.Errorf("second row %+v, want the server's request, answered by the host", rows[1])
	}
}

// The table notes what the proxy did with an answer it held: the state
// follows the wire (the server answered), Hold what the host got.
func TestTableNotesHeldAnswers(t *testing.T) {
	tb := NewTable()
	start := time.Unix(1000, 0)
	rec := func(ms int, dir wire.Direction, kind wire.Kind, data string) {
		tb.Observe(wire.Record{At: start.Add(time.Duration(ms) * time.Millisecond), Dir: dir, Kind: kind, Data: []byte(data), Session: "s1"})
	}
	for _, id := range []string{"1", "2", "3"} {
		rec(0, wire.Out, wire.KindFrame, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"a"}}`)
		rec(10, wire.In, wire.KindRelay, EventHeld+id+" (until released, at most 5m0s)")
		rec(11, wire.In, wire.KindFrame, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
	}
	rec(100, wire.In, wire.KindRelay, EventReleased+"1")
	rec(200, wire.In, wire.KindRelay, EventDropped+"2")
	for id, want := range map[string]string{"1": HoldPassed, "2": HoldDropped, "3": HoldHeld} {
		r, ok := tb.Row(wire.Out, RequestRef{"s1", id})
		if !ok || r.Hold != want || r.State != Answered || !r.HeldAt.Equal(start.Add(10*time.Millisecond)) {
			t.Errorf("request %s: %+v, want its answer %s", id, r, want)
		}
	}
	if r, _ := tb.Row(wire.Out, RequestRef{"s1", "1"}); r.HoldEnded.Sub(r.HeldAt) != 90*time.Millisecond {
		t.Errorf("held %s, want 90ms", r.HoldEnded.Sub(r.HeldAt))
	}
}
