package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := rig.client.Do(req.WithContext(ctx)); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
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
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("waited 10s for the host's request to end")
	}
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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if resp, err := rig.client.Do(req.WithContext(ctx)); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	rig.waitRow(RequestRef{"s1", "2"}, Pending)
	cancel()
	if r := rig.waitRow(RequestRef{"s1", "2"}, Cancelled); r.CancelReason != "the host closed the request's response stream" {
		t.Errorf("s1:2 cancelled for %q, want the closed stream", r.CancelReason)
	}
}

// With --on-kill silent the host still waits on a killed request: when
// it gives up and closes the stream, that is its own cancel (in
// 2026-07-28 the only one it makes), and the records and the card say
// so rather than that the host never cancelled.
func TestHTTPSilentKillThenTheHostClosingItsStream(t *testing.T) {
	rig := startHTTPProxyRig(t, KillOptions{Silent: true}, Faults{})
	s := rig.session()
	req, _ := http.NewRequest(http.MethodPost, rig.url, strings.NewReader(slowCall))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(transport.HeaderSessionID, s.sid)
	req.Header.Set(transport.HeaderProtocolVersion, "2025-11-25")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan string, 1)
	go func() {
		defer close(got)
		if resp, err := rig.client.Do(req.WithContext(ctx)); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got <- string(b)
		}
	}()
	ref := RequestRef{"s1", "2"}
	rig.waitRow(ref, Pending)
	if rep := rig.controls.Handle(ControlRequest{Control: ControlKill, Session: "s1", ID: json.RawMessage(`2`)}); rep.Error != "" {
		t.Fatalf("kill: %+v", rep)
	}
	select {
	case b := <-got:
		t.Fatalf("silent, the host got %q", b)
	case <-time.After(300 * time.Millisecond):
	}
	if ev := relayEvents(rig.recs.all(), EventStreamClosed); len(ev) != 0 {
		t.Fatalf("a closed stream recorded before the host closed it: %q", ev)
	}
	cancel() // the host's own timeout
	deadline := time.Now().Add(10 * time.Second)
	for len(relayEvents(rig.recs.all(), EventStreamClosed)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no record that the host closed the stream of its killed request: %q", relayEvents(rig.recs.all(), ""))
		}
		time.Sleep(5 * time.Millisecond)
	}
	form := rig.controls.Card.Report().Lines[0]
	if len(form.Facts) != 1 || !strings.Contains(form.Facts[0], "request s1:2 (tools/call): closed its response stream") {
		t.Errorf("the card's form line: %s %q, want the host's closed stream", form.Status, form.Facts)
	}
}

// The same when the kill comes before the upstream's answer began (a
// server that sends its headers only with its answer): the host's
// giving up is recorded as its closed stream.
func TestHTTPSilentKillBeforeTheAnswerBegan(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), `"tools/call"`) {
			<-r.Context().Done() // no headers until an answer that never comes
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	recs := &recordList{}
	rec := NewRecorder()
	rec.Observe(recs.observe)
	controls := &Controls{Card: NewCard("http"), Table: NewTable()}
	rec.ObserveParsed(controls.Table.ObserveParsed)
	px := httptest.NewServer(NewHTTPHandler(HTTPOptions{Upstream: u, Recorder: rec, Controls: controls, Kill: KillOptions{Silent: true}}))
	defer func() { px.CloseClientConnections(); px.Close(); rec.Close() }()

	req, _ := http.NewRequest(http.MethodPost, px.URL+"/mcp", strings.NewReader(slowCall))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(transport.HeaderProtocolVersion, "2026-07-28")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if resp, err := http.DefaultClient.Do(req.WithContext(ctx)); err == nil {
			resp.Body.Close()
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if r, ok := controls.Table.Row(wire.Out, RequestRef{"", "2"}); ok && r.State == Pending {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("waited 10s for the call to be pending")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if rep := controls.Handle(ControlRequest{Control: ControlKill, ID: json.RawMessage(`2`)}); rep.Error != "" {
		t.Fatalf("kill: %+v", rep)
	}
	time.Sleep(100 * time.Millisecond)
	if ev := relayEvents(recs.all(), EventStreamClosed); len(ev) != 0 {
		t.Fatalf("a closed stream recorded before the host closed it: %q", ev)
	}
	cancel()
	for deadline = time.Now().Add(10 * time.Second); len(relayEvents(recs.all(), EventStreamClosed)) == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("no record that the host closed the stream of its killed request: %q", relayEvents(recs.all(), ""))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A host that closes the stream of a call before the upstream's answer
// began (a 2026-07-28 server that sends its headers with its answer) has
// cancelled it, and the records say so, with the kill switch on or off.
func TestHTTPHostClosingBeforeTheAnswerBegan(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done() // no headers until an answer that never comes
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	for _, withControls := range []bool{false, true} {
		t.Run(fmt.Sprintf("controls=%v", withControls), func(t *testing.T) {
			recs := &recordList{}
			rec := NewRecorder()
			rec.Observe(recs.observe)
			card := NewCard("http")
			rec.ObserveParsed(card.ObserveParsed)
			opts := HTTPOptions{Upstream: u, Recorder: rec}
			if withControls {
				opts.Controls = &Controls{Card: card, Table: NewTable()}
			}
			px := httptest.NewServer(NewHTTPHandler(opts))
			defer func() { px.CloseClientConnections(); px.Close(); rec.Close() }()
			req, _ := http.NewRequest(http.MethodPost, px.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"sleep","arguments":{}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set(transport.HeaderProtocolVersion, "2026-07-28")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := http.DefaultClient.Do(req.WithContext(ctx)); err == nil {
					resp.Body.Close()
				}
			}()
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(strings.Join(frames(recs.all()), "\n"), `"tools/call"`) {
				if time.Now().After(deadline) {
					t.Fatal("waited 10s for the call to be recorded")
				}
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
			<-done
			for deadline = time.Now().Add(10 * time.Second); len(relayEvents(recs.all(), EventStreamClosed)) == 0; {
				if time.Now().After(deadline) {
					t.Fatalf("no record that the host closed the call's stream: %q", relayEvents(recs.all(), ""))
				}
				time.Sleep(5 * time.Millisecond)
			}
			if ev := relayEvents(recs.all(), EventStreamClosed); len(ev) != 1 || ev[0] != EventStreamClosed+`"c1"` {
				t.Errorf("relay events %q, want the host closing the stream of \"c1\" once", ev)
			}
		})
	}
}

// frames is every frame of the records, as text.
func frames(recs []wire.Record) []string {
	var out []string
	for _, r := range recs {
		if r.Kind == wire.KindFrame {
			out = append(out, string(r.Data))
		}
	}
	return out
}
