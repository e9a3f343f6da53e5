package connect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

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
