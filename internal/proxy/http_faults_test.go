package proxy

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// serverMessages is what the upstream sent, as the records have it.
func serverMessages(recs []wire.Record, session string) []string {
	var out []string
	for _, r := range recs {
		if r.Dir == wire.In && r.Kind == wire.KindFrame && r.Session == session {
			out = append(out, string(r.Data))
		}
	}
	return out
}

// --drop-progress over HTTP: the host's stream lacks the progress and
// has the answer as the server sent it, byte for byte.
func TestHTTPDropProgressTouchesNothingElse(t *testing.T) {
	rig := startHTTPProxyRig(t, KillOptions{}, Faults{DropProgress: true})
	s := rig.session()
	msgs := s.call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":0.3,"steps":3},"_meta":{"progressToken":"p"}}}`)
	var got []string
	for m := range msgs {
		got = append(got, m)
	}
	rig.rec.Close()
	var progress int
	var answer string
	for _, m := range serverMessages(rig.recs.all(), "s1") {
		switch {
		case strings.Contains(m, `"notifications/progress"`):
			progress++
		case strings.Contains(m, `"id":2`):
			answer = m
		}
	}
	if progress != 3 {
		t.Errorf("the server sent %d progress notifications, want 3", progress)
	}
	if len(got) != 1 || got[0] != answer {
		t.Errorf("the host got %q, want only the server's answer unchanged: %s", got, answer)
	}
	// The records say that each was dropped, not only that it came.
	if ev := relayEvents(rig.recs.all(), EventProgressDropped); len(ev) != 3 || ev[0] != EventProgressDropped+`"p"` {
		t.Errorf("the records say %q of the dropped progress, want 3 drops of token \"p\"", ev)
	}
}

// --delay over HTTP holds the answer, then passes it on unchanged.
func TestHTTPDelayHoldsEachAnswer(t *testing.T) {
	const delay = 400 * time.Millisecond
	rig := startHTTPProxyRig(t, KillOptions{}, Faults{Delay: delay})
	s := rig.session() // initialize's answer is held too
	start := time.Now()
	ans, _ := answerOf(t, s.call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"late"}}}`), 10*time.Second, "the delayed echo")
	if took := time.Since(start); took < delay {
		t.Errorf("the echo's answer came after %s, want at least --delay %s", took, delay)
	}
	rig.rec.Close()
	var server string
	for _, m := range serverMessages(rig.recs.all(), "s1") {
		if strings.Contains(m, `"id":2`) {
			server = m
		}
	}
	if ans != server {
		t.Errorf("the host got %s, want the server's answer unchanged: %s", ans, server)
	}
	if held := relayEvents(rig.recs.all(), EventHeld); len(held) != 2 || !strings.Contains(held[1], "2 (for --delay") {
		t.Errorf("held events %q, want initialize's and the echo's", held)
	}
}

// Hold, release and drop over HTTP: a held answer waits for the key,
// then goes on; a dropped one never reaches the host, whose stream ends.
func TestHTTPHoldReleaseAndDrop(t *testing.T) {
	rig := startHTTPProxyRig(t, KillOptions{}, Faults{MaxHold: 20 * time.Second})
	s := rig.session()
	call := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":0.3,"steps":1}}}`
	for _, c := range []struct {
		id   int
		fate string
	}{{2, ControlRelease}, {3, ControlDrop}} {
		msgs := s.call(strings.Replace(call, "%d", string(rune('0'+c.id)), 1))
		ref := RequestRef{"s1", string(rune('0' + c.id))}
		rig.waitRow(ref, Pending)
		if rep := rig.controls.Handle(ControlRequest{Control: ControlHold, Session: "s1", ID: json.RawMessage(ref.ID)}); rep.Error != "" {
			t.Fatalf("hold %s: %+v", ref, rep)
		}
		rig.waitRow(ref, Answered) // the server answered; the host waits
		select {
		case m := <-msgs:
			t.Fatalf("held, yet the host got %s", m)
		case <-time.After(300 * time.Millisecond):
		}
		if rep := rig.controls.Handle(ControlRequest{Control: c.fate, Session: "s1", ID: json.RawMessage(ref.ID)}); rep.Error != "" {
			t.Fatalf("%s %s: %+v", c.fate, ref, rep)
		}
		ans, _ := answerOf(t, msgs, 10*time.Second, c.fate+" of "+ref.String())
		switch {
		case c.fate == ControlRelease && !strings.Contains(ans, `"id":2`):
			t.Errorf("released, the host got %q, want the answer to 2", ans)
		case c.fate == ControlDrop && ans != "":
			t.Errorf("dropped, the host got %q", ans)
		}
	}
	if rep := rig.controls.Handle(ControlRequest{Control: ControlRelease, Session: "s1", ID: json.RawMessage(`9`)}); !strings.Contains(rep.Error, "no answer to request s1:9 is held") {
		t.Errorf("release of nothing held: %+v", rep)
	}
}

// --answer-after-cancel over HTTP: the answer waits for the host's
// cancel, then reaches the host late, and the card says so.
func TestHTTPAnswerAfterCancel(t *testing.T) {
	rig := startHTTPProxyRig(t, KillOptions{}, Faults{AnswerAfterCancel: true, MaxHold: 20 * time.Second})
	s := rig.session()
	msgs := s.call(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"held"}}}`)
	rig.waitRow(RequestRef{"s1", "4"}, Answered)
	select {
	case m := <-msgs:
		t.Fatalf("the host got %s before it cancelled", m)
	case <-time.After(300 * time.Millisecond):
	}
	s.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"timeout"}}`).Body.Close()
	ans, _ := answerOf(t, msgs, 10*time.Second, "the late echo")
	if !strings.Contains(ans, `"id":4`) || !strings.Contains(ans, "held") {
		t.Errorf("after its cancel the host got %q, want the echo's answer", ans)
	}
	rig.rec.Close()
	l := line(t, rig.controls.Card.Report(), "Late answers")
	if !strings.Contains(strings.Join(l.Facts, " "), "s1:4") {
		t.Errorf("the card's late-answer line does not name s1:4: %+v", l)
	}
}

// A host that closes the stream of a held answer never gets it, and the
// records say it closed the stream with the answer not yet its.
func TestHTTPHostClosingAHeldAnswersStream(t *testing.T) {
	rig := startHTTPProxyRig(t, KillOptions{}, Faults{MaxHold: 20 * time.Second})
	s := rig.session()
	req, _ := http.NewRequest(http.MethodPost, rig.url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":0.2,"steps":1}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(transport.HeaderSessionID, s.sid)
	req.Header.Set(transport.HeaderProtocolVersion, "2025-11-25")
	hangUp := rig.postAside(req)
	ref := RequestRef{"s1", "2"}
	rig.waitRow(ref, Pending)
	if rep := rig.controls.Handle(ControlRequest{Control: ControlHold, Session: "s1", ID: json.RawMessage(`2`)}); rep.Error != "" {
		t.Fatalf("hold: %+v", rep)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(relayEvents(rig.recs.all(), EventHeld)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("waited 10s for the answer to be held")
		}
		time.Sleep(5 * time.Millisecond)
	}
	hangUp()
	deadline = time.Now().Add(10 * time.Second)
	for len(relayEvents(rig.recs.all(), EventStreamClosed)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no record that the host closed the stream of its held answer: %q", relayEvents(rig.recs.all(), ""))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if rep := rig.controls.Handle(ControlRequest{Control: ControlRelease, Session: "s1", ID: json.RawMessage(`2`)}); rep.Error == "" {
		t.Errorf("released an answer whose host is gone: %+v", rep)
	}
}

// With the kill switch on (bodies gated), a host closing the stream of
// a pending call is still recorded as its cancel.
func TestHTTPGatedHostClosingAStreamIsRecorded(t *testing.T) {
	rig := startHTTPProxyRig(t, KillOptions{}, Faults{})
	s := rig.session()
	req, _ := http.NewRequest(http.MethodPost, rig.url, strings.NewReader(slowCall))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(transport.HeaderSessionID, s.sid)
	req.Header.Set(transport.HeaderProtocolVersion, "2025-11-25")
	hangUp := rig.postAside(req)
	rig.waitRow(RequestRef{"s1", "2"}, Pending)
	hangUp()
	if r := rig.waitRow(RequestRef{"s1", "2"}, Cancelled); r.CancelReason != "the host closed the request's response stream" {
		t.Errorf("s1:2 cancelled for %q, want the closed stream", r.CancelReason)
	}
}

// --on-kill silent over HTTP: the host hears nothing, and when it gives
// up and closes its stream, the records say so, as over stdio they hold
// the notifications/cancelled a host sends then. The TypeScript SDK v2
// client does that on its own timeout; before, its close went unrecorded.
func TestHTTPSilentKillRecordsTheHostGivingUp(t *testing.T) {
	for _, c := range []struct {
		name, version, body string
	}{
		// 2025-11-25: the demo's SSE stream began before the kill.
		{"streaming", "2025-11-25", slowCall},
		// 2026-07-28: the demo sends no headers before its answer.
		{"before the answer began", "2026-07-28", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":5,"steps":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			rig := startHTTPProxyRig(t, KillOptions{Silent: true}, Faults{})
			sess, ref := "", RequestRef{"", "2"}
			req, _ := http.NewRequest(http.MethodPost, rig.url, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set(transport.HeaderProtocolVersion, c.version)
			if c.version < "2026-07-28" {
				s := rig.session()
				req.Header.Set(transport.HeaderSessionID, s.sid)
				sess, ref = "s1", RequestRef{"s1", "2"}
			} else {
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "sleep")
			}
			hangUp := rig.postAside(req)
			rig.waitRow(ref, Pending)
			if rep := rig.controls.Handle(ControlRequest{Control: ControlKill, Session: sess, ID: json.RawMessage(`2`)}); rep.Error != "" {
				t.Fatalf("kill: %+v", rep)
			}
			rig.waitRow(ref, Cancelled)
			if n := len(relayEvents(rig.recs.all(), EventStreamClosed)); n != 0 {
				t.Fatalf("%d closed streams recorded before the host gave up", n)
			}
			hangUp() // the host's own timeout
			deadline := time.Now().Add(10 * time.Second)
			for {
				var got []string
				for _, r := range rig.recs.all() {
					if r.Kind == wire.KindRelay && string(r.Data) == EventStreamClosed+"2" && r.Session == sess {
						got = append(got, string(r.Data))
					}
				}
				if len(got) == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("relay events %q: want one record that the host closed request 2's stream", relayEvents(rig.recs.all(), ""))
				}
				time.Sleep(5 * time.Millisecond)
			}
			if r := rig.waitRow(ref, Cancelled); r.CancelledBy != CancelledByProxy {
				t.Errorf("row cancelled by %q, want the proxy still", r.CancelledBy)
			}
		})
	}
}
