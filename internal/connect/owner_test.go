package connect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

// closeCounter counts Close calls.
type closeCounter struct{ n int }

func (c *closeCounter) Close() error { c.n++; return nil }

func TestCloseAfterIsClosedOnceAfterTheServer(t *testing.T) {
	var f closeCounter
	c, err := Start(testDemoSpec(t), Options{CloseAfter: []io.Closer{&f}})
	if err != nil {
		t.Fatal(err)
	}
	if f.n != 0 {
		t.Fatal("closed before the connection")
	}
	c.Close()
	c.Close()
	if f.n != 1 {
		t.Errorf("closed %d times; want once", f.n)
	}
}

func TestCloseAfterIsClosedWhenStartFails(t *testing.T) {
	var f closeCounter
	if _, err := Start(Spec{Name: "nope", Command: "mcpoke-no-such-command"}, Options{CloseAfter: []io.Closer{&f}}); err == nil {
		t.Fatal("started a missing command")
	}
	if f.n != 1 {
		t.Errorf("closed %d times; want once", f.n)
	}
}

func TestAttachInitializesOverAPipe(t *testing.T) {
	a, b := transporttest.Pipe()
	srv := demo.NewSession(b, io.Discard)
	defer srv.Close()
	c := Attach(Spec{Name: "mem"}, a, Options{})
	defer c.Close()
	recs := make(chan wire.Record, 16)
	c.Observe(func(r wire.Record) {
		select {
		case recs <- r:
		default:
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	peer, err := c.Initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if peer.ServerInfo.Name != demo.ServerName || c.Peer().ServerInfo != peer.ServerInfo || c.Transport() != "memory" || c.pid() != 0 {
		t.Errorf("peer %+v, Peer() %+v, transport %s, pid %d", peer, c.Peer(), c.Transport(), c.pid())
	}
	select {
	case r := <-recs:
		if r.Dir != wire.Out {
			t.Errorf("first record %+v; want initialize going out", r)
		}
	default:
		t.Error("the observer saw no frame of the handshake")
	}
}

func TestEndReason(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&transport.ExitError{Code: 3, Stderr: []string{"panic: boom"}}, "server exited with status 3"},
		{&transport.ExitError{Code: -1, Signal: "SIGKILL"}, "server killed by signal SIGKILL"},
		{errors.New("pipe broke"), "pipe broke"},
		{nil, ""},
	} {
		if got := EndReason(tc.err); got != tc.want {
			t.Errorf("EndReason(%v) = %q; want %q", tc.err, got, tc.want)
		}
	}
}

// The tap and the session read one clock: the cancel's wire record is
// stamped with the very time the session counts late traffic from.
func TestTapAndSessionShareOneClock(t *testing.T) {
	a, b := transporttest.Pipe()
	srv := demo.NewSession(b, io.Discard)
	defer srv.Close()
	clock := clocktest.New()
	c := Attach(Spec{Name: "mem"}, a, Options{Session: session.Config{Clock: clock}})
	defer c.Close()
	cancels := make(chan wire.Record, 1)
	c.Observe(func(r wire.Record) {
		if r.Dir == wire.Out && bytes.Contains(r.Data, []byte(`"notifications/cancelled"`)) {
			cancels <- r
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	call, err := c.Session.Call(ctx, "tools/call", json.RawMessage(`{"name":"sleep","arguments":{"seconds":30}}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Second)
	req := c.Session.Request(call.Ref())
	if err := req.Cancel("test"); err != nil {
		t.Fatal(err)
	}
	var rec wire.Record
	select {
	case rec = <-cancels:
	case <-ctx.Done():
		t.Fatal("no notifications/cancelled passed the tap")
	}
	info, _ := req.Info()
	if !rec.At.Equal(info.CancelSentAt) || !c.tap.Start().Equal(clocktest.Epoch) {
		t.Errorf("cancel record at %v, session's CancelSentAt %v, tap start %v; want all on the fake clock (epoch %v)",
			rec.At, info.CancelSentAt, c.tap.Start(), clocktest.Epoch)
	}
}

// steppingClock moves a millisecond at every reading, so that two
// readings of one moment never agree by chance: times agree only where
// they share a reading. Its timers never fire.
type steppingClock struct {
	*clocktest.Clock
	mu  sync.Mutex
	now time.Time
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

// A response that crosses our cancel on the wire is late on screen (the
// session's events) and in the transcript alike, by the same delay: the
// session times it from the tap's own records.
func TestScreenAndTranscriptAgreeOnAResponseThatCrossesACancel(t *testing.T) {
	a, peer := transporttest.Pipe()
	defer peer.Close()
	clock := &steppingClock{Clock: clocktest.New(), now: clocktest.Epoch}
	var tr buffertest.Buffer
	c := Attach(Spec{Name: "mem"}, a, Options{Transcript: &tr, Session: session.Config{Clock: clock}})
	defer c.Close()
	sub := c.Session.Subscribe()
	defer sub.Close()
	recv := func() []byte {
		t.Helper()
		m, err := peer.Recv()
		if err != nil {
			t.Fatal(err)
		}
		return m.Data
	}

	call, err := c.Session.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"slow"}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	recv() // the request
	if err := c.Session.Request(call.Ref()).Cancel("test"); err != nil {
		t.Fatal(err)
	}
	if f := recv(); !bytes.Contains(f, []byte(`"notifications/cancelled"`)) {
		t.Fatalf("peer got %s; want the cancel", f)
	}
	// The peer had answered before it read the cancel: the answer crosses it.
	if err := peer.Send([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)); err != nil {
		t.Fatal(err)
	}
	var sent session.CancelSent
	var late session.LateArrived
	timeout := time.After(10 * time.Second)
	for late.Ref.Seq == 0 {
		select {
		case e := <-sub.C:
			switch e := e.(type) {
			case session.CancelSent:
				sent = e
			case session.LateArrived:
				late = e
			}
		case <-timeout:
			t.Fatal("no LateArrived event")
		}
	}
	info, _ := c.Session.Request(call.Ref()).Info()
	if late.Ref.Seq != call.Seq() || late.Late.Kind != session.LateResponse || late.Late.AfterCancel <= 0 ||
		!sent.At.Equal(info.CancelSentAt) {
		t.Fatalf("screen: late %+v after cancel sent at %v (CancelSentAt %v); want a late response of request %d",
			late, sent.At, info.CancelSentAt, call.Seq())
	}

	c.Close()
	var cancelT, answerT float64
	var note string
	for line := range strings.Lines(tr.String()) {
		var l struct {
			T   float64 `json:"t"`
			Dir string  `json:"dir"`
			Msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
			} `json:"msg"`
			Note string `json:"note"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("transcript line %q: %v", line, err)
		}
		switch {
		case l.Dir == "out" && l.Msg.Method == "notifications/cancelled":
			cancelT = l.T
		case l.Dir == "in" && l.Msg.Result != nil:
			answerT, note = l.T, l.Note
		}
	}
	screen := float64(late.Late.AfterCancel.Microseconds()) / 1000
	if note != "late" || answerT-cancelT != screen {
		t.Errorf("transcript: the answer at %.3fms, note %q, %.3fms after the cancel at %.3fms; the screen says late, %.3fms after\n%s",
			answerT, note, answerT-cancelT, cancelT, screen, tr.String())
	}
	if at := float64(sent.At.Sub(clocktest.Epoch.Add(time.Millisecond)).Microseconds()) / 1000; at != cancelT {
		t.Errorf("the screen's cancel is at %.3fms, the transcript's at %.3fms; want one reading", at, cancelT)
	}
}
