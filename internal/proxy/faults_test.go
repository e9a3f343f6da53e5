//go:build linux

package proxy

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/check"
	"github.com/mcpoke/mcpoke/internal/wire"
)

// serverLines is what the server sent, as the records have it.
func serverLines(recs []wire.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Dir == wire.In && r.Kind == wire.KindFrame {
			out = append(out, string(r.Data))
		}
	}
	return out
}

// --drop-progress drops the progress and nothing else: every other line
// the host got is byte for byte a line the server sent.
func TestDropProgressTouchesNothingElse(t *testing.T) {
	k := startFaultRelay(t, KillOptions{}, Faults{DropProgress: true})
	k.host.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":0.3,"steps":3},"_meta":{"progressToken":"p"}}}`)
	got := k.host.collect(`"id":2`)
	k.host.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"caf\u00e9 \u2603"}}}`)
	got = append(got, k.host.collect(`"id":3`)...)
	k.end(t)
	sent := serverLines(k.recs.all())
	progress := 0
	var kept []string
	for _, l := range sent {
		if strings.Contains(l, `"notifications/progress"`) {
			progress++
		} else if !strings.Contains(l, `"id":1,`) { // initialize's answer came before collect
			kept = append(kept, l)
		}
	}
	if progress != 3 {
		t.Errorf("the server sent %d progress notifications, want 3", progress)
	}
	for _, l := range got {
		if strings.Contains(l, "notifications/progress") {
			t.Errorf("the host got progress: %s", l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(kept, "\n") {
		t.Errorf("the host got\n%s\nwant the server's other lines unchanged:\n%s", strings.Join(got, "\n"), strings.Join(kept, "\n"))
	}
	// The records say that each was dropped, not only that it came.
	if ev := relayEvents(k.recs.all(), EventProgressDropped); len(ev) != 3 || ev[0] != EventProgressDropped+`"p"` {
		t.Errorf("the records say %q of the dropped progress, want 3 drops of token \"p\"", ev)
	}
}

// --answer-after-cancel keeps an answer until the host cancels, then
// passes it on unchanged: a late answer on demand.
func TestAnswerAfterCancelWaitsForTheCancel(t *testing.T) {
	k := startFaultRelay(t, KillOptions{}, Faults{AnswerAfterCancel: true, MaxHold: 20 * time.Second})
	k.host.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"held"}}}`)
	deadline := time.Now().Add(10 * time.Second)
	for len(relayEvents(k.recs.all(), EventHeld)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the echo's answer was never held")
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case l := <-k.host.lines:
		t.Fatalf("the host got %s before it cancelled", l)
	case <-time.After(200 * time.Millisecond):
	}
	k.host.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"timeout"}}`)
	got := k.host.collect(`"id":4`)
	k.end(t)
	var server string
	for _, l := range serverLines(k.recs.all()) {
		if strings.Contains(l, `"id":4`) {
			server = l
		}
	}
	if got[len(got)-1] != server {
		t.Errorf("the host got %s, want the server's answer unchanged: %s", got[len(got)-1], server)
	}
	// The card counts the answer when the host got it: after its cancel.
	rep := k.controls.Card.Report()
	wantLine(t, rep, "Late answers", Info, "request 4 (tools/call): answered")
	wantLine(t, rep, "Cancels only requests", check.Pass)
}

// --delay holds each answer, and the hold/release/drop controls act on one.
func TestDelayAndHoldControls(t *testing.T) {
	k := startFaultRelay(t, KillOptions{}, Faults{Delay: 300 * time.Millisecond})
	start := time.Now()
	k.host.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"slow"}}}`)
	k.host.collect(`"id":5`)
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("the answer came after %v, want at least the 300ms delay", d)
	}
	k.end(t)

	k = startFaultRelay(t, KillOptions{}, Faults{})
	k.host.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":0.3,"steps":1}}}`)
	k.waitPending(t, "6")
	if rep := k.controls.Handle(ControlRequest{Control: ControlHold, ID: json.RawMessage(`6`)}); rep.Error != "" {
		t.Fatalf("hold: %+v", rep)
	}
	k.host.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":0.3,"steps":1}}}`)
	k.waitPending(t, "7")
	k.controls.Handle(ControlRequest{Control: ControlHold, ID: json.RawMessage(`7`)})
	deadline := time.Now().Add(10 * time.Second)
	for len(relayEvents(k.recs.all(), EventHeld)) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the answers were not both held")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if rep := k.controls.Handle(ControlRequest{Control: ControlDrop, ID: json.RawMessage(`6`)}); rep.Error != "" {
		t.Fatalf("drop: %+v", rep)
	}
	if rep := k.controls.Handle(ControlRequest{Control: ControlRelease, ID: json.RawMessage(`7`)}); rep.Error != "" {
		t.Fatalf("release: %+v", rep)
	}
	for _, l := range k.host.collect(`"id":7`) {
		if strings.Contains(l, `"id":6`) {
			t.Errorf("the dropped answer reached the host: %s", l)
		}
	}
	if rep := k.controls.Handle(ControlRequest{Control: ControlRelease, ID: json.RawMessage(`6`)}); !strings.Contains(rep.Error, "no answer to request 6 is held") {
		t.Errorf("release after drop: %+v", rep)
	}
	k.end(t)
}
