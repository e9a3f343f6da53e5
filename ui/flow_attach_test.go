package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/mcpoke/mcpoke/internal/proxy"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// A proxy's attach stream, as mcpoke attach reads it: a host
// (clientInfo "claude-ai 0.9") initializes, calls sleep (with progress),
// calls stubborn and cancels it, whose answer comes anyway and goes on;
// calls a tool that fails; the server asks the host for a sample.
var attachLive = []string{
	`{"t":0.000,"dir":"relay","relay":"mcpoke proxy demo (pid 42) relays to: mcpoke demo-server"}`,
	`{"t":5.000,"dir":"out","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.9"}}}}`,
	`{"t":30.000,"dir":"in","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"mcpoke-demo","version":"dev"}}}}`,
	`{"t":31.000,"dir":"out","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}`,
	`{"t":40.000,"dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30},"_meta":{"progressToken":"t1"}}}}`,
	`{"t":50.000,"dir":"out","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stubborn","arguments":{"seconds":1}}}}`,
	`{"t":60.000,"dir":"out","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nosuch","arguments":{}}}}`,
	`{"t":61.000,"dir":"in","msg":{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"unknown tool nosuch"}}}`,
	`{"t":70.000,"dir":"in","msg":{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}}`,
	`{"t":1040.000,"dir":"in","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1,"total":30}}}`,
	`{"t":1300.000,"dir":"out","msg":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user pressed Stop"}}}`,
	`{"t":1350.000,"dir":"stderr","raw":"cancel received: handler ignores cancellation"}`,
	`{"t":2050.000,"dir":"in","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"finished after 1s"}]}}}`,
}

// Then the host leaves with sleep pending and no cancel, and the server
// exits with the host's sample unanswered.
var attachEnd = []string{
	`{"t":3000.000,"dir":"relay","relay":"the host closed its input"}`,
	`{"t":3100.000,"dir":"relay","relay":"server exited with status 0"}`,
}

// attachedFlow runs the UI attached to a stream fed from lines: each
// send on feed hands it a batch of lines; closing feed ends the stream.
func attachedFlow(t *testing.T) (*flow, chan<- []string) { return attachedFlowWith(t, nil) }

// attachedFlowWith is attachedFlow with a control channel.
func attachedFlowWith(t *testing.T, control func(context.Context, AttachControl) (string, error)) (*flow, chan<- []string) {
	clock := newFakeClock()
	start := clock.Now()
	w := proxy.NewWatcher(start)
	feed := make(chan []string)
	a := &Attached{Name: "demo", Start: start,
		Run: func(ctx context.Context, record func(wire.Record), item func(any)) error {
			holds := func() {
				for _, h := range w.Holds() {
					item(rows.HoldChanged{Ref: h.Ref, Hold: rows.Hold{At: h.At, Ended: h.Ended, Dropped: h.Dropped}})
				}
			}
			for lines := range feed {
				for _, l := range lines {
					if rec, events, ok := w.Line([]byte(l)); ok {
						record(rec)
						for _, e := range events {
							item(e)
						}
						holds()
					}
				}
			}
			for _, e := range w.End(start.Add(4 * time.Second)) {
				item(e)
			}
			holds()
			return nil
		},
		Info: w.Info,
		Header: func() AttachedHeader {
			h := w.Header()
			return AttachedHeader{Host: h.Host, Server: h.Server, Version: h.Version, Transport: h.Transport}
		},
		Control: control,
	}
	m := New(Options{now: clock.Now, static: true, frameInterval: time.Millisecond, Attached: a})
	p := &probe{m: m}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(flowWidth, flowHeight),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	f := &flow{t: t, tm: tm, p: p, clock: clock}
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	})
	clock.Advance(2500 * time.Millisecond) // sleep has run 2.46s
	return f, feed
}

func TestFlowAttach(t *testing.T) {
	f, feed := attachedFlow(t)
	feed <- attachLive
	f.golden("live", "host claude-ai 0.9 ⇄ mcpoke-demo", "MCP 2025-11-25", "stdio proxy", "● attached",
		"late response (+0.8s)", "1/30", `"s1" ← sampling`, "✗ failed")

	// The keys that would send do nothing here: no cancel, no reconnect.
	f.keys("j", "c", "C", "r")
	s := f.waitScreen("DETAIL #1 tools/call sleep")
	for _, no := range []string{"cancel requested", "closing", "CALL "} {
		if strings.Contains(s, no) {
			t.Fatalf("attached, a key sent something (%q on screen):\n%s", no, s)
		}
	}

	// The stubborn call: cancelled by the host, with its reason; the
	// answer that came 750ms later went on to the host.
	f.keys("j")
	s = f.golden("cancelled", `cancel "user pressed Stop"`, "passed on to its sender", "+0.8s   response")
	// The host's timeout is the host's: the proxy cannot see it.
	if strings.Contains(s, "timeout none") {
		t.Fatalf("attached, the detail claims the host's request has no timeout:\n%s", s)
	}
	f.keys("d")
	f.golden("timeline", "host", "result · passed on (cancel +750ms)", "went on to its sender")
	f.keys("d")

	feed <- attachEnd
	close(feed)
	f.keys("k")
	f.golden("ended", "the proxy ended", "the host disconnected with th",
		"the server exited with the re", "sent no cancel")
}

// TestFlowAttachHeld: an answer the proxy holds shows as held, with its
// age, not as completed; once passed on the row completes and says how
// long it was held; a dropped answer leaves the host waiting, and the
// row says the proxy dropped it.
func TestFlowAttachHeld(t *testing.T) {
	f, feed := attachedFlow(t)
	feed <- append(attachLive,
		`{"t":1000.000,"dir":"out","msg":{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}}`,
		`{"t":1100.000,"dir":"out","msg":{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}}`,
		`{"t":1500.000,"dir":"relay","relay":"mcpoke proxy holds the answer to request 7 (until released, at most 5m0s)"}`,
		`{"t":1500.100,"dir":"in","msg":{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"x"}]}}}`,
		`{"t":1600.000,"dir":"relay","relay":"mcpoke proxy holds the answer to request 8 (for --delay, at most 10s)"}`,
		`{"t":1600.100,"dir":"in","msg":{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"3"}]}}}`,
	)
	f.golden("held", "⏸ held by proxy", "answer held by proxy 1.0s", "answer held by proxy 0.9s")
	if s := f.p.screen(); strings.Contains(s, "tools/call echo ✓") {
		t.Fatalf("a held answer shows as completed:\n%s", s)
	}
	f.keys("G")
	f.waitScreen("DETAIL #8", "the proxy holds the server's answer")
	feed <- []string{
		`{"t":2000.000,"dir":"relay","relay":"mcpoke proxy passed on the held answer to request 7"}`,
		`{"t":2200.000,"dir":"relay","relay":"mcpoke proxy dropped the held answer to request 8"}`,
	}
	f.golden("released-dropped", "held by proxy 0.5s", "∅ answer dropped", "dropped after 0.6s")
}

// TestFlowAttachControl: with a control channel, the keys that act on
// the host's requests send the proxy's control messages, the id keeping
// its JSON type, and the replies reach the status line and the card its
// pane.
func TestFlowAttachControl(t *testing.T) {
	sent := make(chan AttachControl, 16)
	control := func(ctx context.Context, req AttachControl) (string, error) {
		sent <- req
		switch req.Control {
		case "card":
			return "### report card of claude-ai\n\x1b[31mred\x1b[0m line", nil
		case "drop":
			return "", errors.New("request 1's answer is not held")
		}
		return "did " + req.Control, nil
	}
	f, feed := attachedFlowWith(t, control)
	feed <- attachLive
	f.waitScreen("1/30")
	next := func(want AttachControl) {
		t.Helper()
		select {
		case got := <-sent:
			if got != want {
				t.Fatalf("sent %+v, want %+v", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("waited 5s for the control message %+v", want)
		}
	}
	// The sampling request is the server's: nothing is sent for it.
	f.keys("G", "c")
	f.waitScreen("the proxy acts only on the host's requests")
	f.keys("g", "j", "c")
	next(AttachControl{Control: "kill", ID: "1", Reason: reasonUser})
	f.waitScreen("proxy: did kill")
	f.keys("C")
	next(AttachControl{Control: "kill-all", Reason: reasonUser})
	f.keys("h")
	next(AttachControl{Control: "hold", ID: "1"})
	f.waitScreen("proxy: did hold")
	f.keys("enter")
	next(AttachControl{Control: "release", ID: "1"})
	f.waitScreen("proxy: did release")
	f.keys("x")
	next(AttachControl{Control: "drop", ID: "1"})
	f.waitScreen("proxy: drop 1: request 1's answer is not held")
	f.keys("R")
	f.typeText("too slow")
	f.keys("enter")
	next(AttachControl{Control: "kill", ID: "1", Reason: "too slow"})
	f.keys("i")
	next(AttachControl{Control: "card"})
	s := f.waitScreen("### report card of", "the host's report card")
	if strings.Contains(s, "\x1b[31m") {
		t.Fatalf("the card's escape reached the screen:\n%q", s)
	}
	select {
	case extra := <-sent:
		t.Fatalf("sent %+v, more than asked", extra)
	default:
	}
}

// TestFlowAttachCardOfTheSelectedSession: over HTTP one proxy serves
// several host sessions, graded each on its own: i asks for the card of
// the selected row's session.
func TestFlowAttachCardOfTheSelectedSession(t *testing.T) {
	sent := make(chan AttachControl, 4)
	control := func(ctx context.Context, req AttachControl) (string, error) {
		sent <- req
		return "Report card of silent-host 1, host session " + req.Session, nil
	}
	f, feed := attachedFlowWith(t, control)
	feed <- []string{
		`{"t":0.000,"dir":"relay","relay":"mcpoke proxy demo (pid 42) relays to: http://127.0.0.1:9/mcp"}`,
		`{"t":5.000,"session":"s1","dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep"}}}`,
		`{"t":6.000,"session":"s2","dir":"out","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}}`,
	}
	f.waitScreen("s2:1", "s1:1")
	f.keys("G", "i")
	select {
	case got := <-sent:
		if got != (AttachControl{Control: "card", Session: "s2"}) {
			t.Fatalf("sent %+v, want the card of s2", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waited 5s for the card to be asked for")
	}
	f.waitScreen("silent-host 1, host", "the report card of host session s2 (the selected row's)")
}

// TestFlowAttachCardScrolls: the report card is longer than the tools
// pane it shows in; the pane's keys scroll it to its last line and back.
func TestFlowAttachCardScrolls(t *testing.T) {
	var card []string
	for i := 1; i <= 80; i++ {
		card = append(card, fmt.Sprintf("card line %02d", i))
	}
	control := func(ctx context.Context, req AttachControl) (string, error) {
		return strings.Join(card, "\n"), nil
	}
	f, feed := attachedFlowWith(t, control)
	feed <- attachLive
	f.waitScreen("1/30")
	f.keys("i")
	s := f.waitScreen("card line 01", "the host's report card", "CARD 1-")
	if strings.Contains(s, "card line 80") {
		t.Fatalf("the whole card fits: the test needs a longer one\n%s", s)
	}
	// The pane is the card's, and enter there calls nothing: the help
	// does not offer it.
	for _, no := range []string{"TOOLS", "call tool"} {
		if strings.Contains(s, no) {
			t.Fatalf("attached, the card's pane shows %q:\n%s", no, s)
		}
	}
	f.keys("G")
	s = f.waitScreen("card line 80")
	if strings.Contains(s, "card line 01") {
		t.Fatalf("at the card's end its first line still shows:\n%s", s)
	}
	f.keys("g")
	f.waitScreen("card line 01")
	f.keys("j", "j")
	s = f.waitScreen("card line 03")
	if strings.Contains(s, "card line 02") {
		t.Fatalf("two lines down, line 02 still shows:\n%s", s)
	}
}
