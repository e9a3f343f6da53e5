package session

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/transport"
)

// serverHarness is a Session acting as a server, driven by raw frames.
type serverHarness struct {
	*harness
	logs *buffertest.Buffer
}

func newServerHarness(t *testing.T, handlers map[string]Handler) *serverHarness {
	a, b := transporttest.Pipe()
	logs := &buffertest.Buffer{}
	h := &harness{t: t, peer: b, clock: clocktest.New(), wire: &wireLog{}}
	tap := transport.NewTap(a, h.clock.Now)
	tap.Observe(h.wire.observe)
	h.s = New(tap, Config{Handlers: handlers, Clock: h.clock, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	h.events = collect(h.s.Subscribe())
	t.Cleanup(func() { closeWithin(t, h.s); h.peer.Close() })
	return &serverHarness{harness: h, logs: logs}
}

func TestIncomingPingAndUnknownMethod(t *testing.T) {
	h := newServerHarness(t, nil)
	h.peerSend(`{"jsonrpc":"2.0","id":"p1","method":"ping"}`)
	if m := h.readFrame(); string(m.ID) != `"p1"` || string(m.Result) != `{}` {
		t.Fatalf("ping answer %+v", m)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}`)
	m := h.readFrame()
	if string(m.ID) != `7` || !contains(string(m.Error), `-32601`) {
		t.Fatalf("unknown method answer id=%s error=%s", m.ID, m.Error)
	}
	// Each answered request of the peer ends, in the table too.
	h.events.waitFor(t, "the ping completed", func(e Event) bool {
		sc, ok := e.(StateChanged)
		return ok && sc.Ref.Incoming && sc.Ref.ID == StringID("p1") && sc.To == Completed
	})
	h.events.waitFor(t, "the unknown method failed", func(e Event) bool {
		sc, ok := e.(StateChanged)
		return ok && sc.Ref.Incoming && sc.Ref.ID == IntID(7) && sc.To == Failed
	})
}

func TestIncomingCancelStopsHandlerAndSuppressesResponse(t *testing.T) {
	stopped := make(chan struct{})
	h := newServerHarness(t, map[string]Handler{
		"tools/call": func(ctx context.Context, in *Incoming) (any, error) {
			if err := in.NotifyProgress(1, 10, "working"); err != nil {
				return nil, err
			}
			<-ctx.Done()
			close(stopped)
			return map[string]string{"should": "not be sent"}, nil
		},
	})
	h.peerSend(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","_meta":{"progressToken":"tok"}}}`)
	p := h.readFrame()
	if p.Method != "notifications/progress" || string(p.Params) != `{"progressToken":"tok","progress":1,"total":10,"message":"working"}` {
		t.Fatalf("progress %s %s", p.Method, p.Params)
	}
	h.clock.Advance(1500 * time.Millisecond)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"user"}}`)
	waitClosed(t, stopped, "the handler's context ending on the peer's cancel")
	h.events.waitFor(t, "incoming cancelled", func(e Event) bool {
		sc, ok := e.(StateChanged)
		return ok && sc.Ref.Incoming && sc.To == Cancelled && sc.Reason == "user"
	})
	closeWithin(t, h.s)
	for _, f := range h.wire.out[1:] {
		t.Errorf("response sent after cancel: %s", f)
	}
	logs := h.logs.String()
	for _, want := range []string{"cancel received", "id=3", "reason=user", "tool=sleep", "ran=1.5s"} {
		if !contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

// Close cancels the context of every incoming handler still running and
// waits for it: a handler blocked on its context ends, and Close returns.
func TestSessionCloseCancelsHandlers(t *testing.T) {
	started, stopped := make(chan struct{}), make(chan struct{})
	h := newServerHarness(t, map[string]Handler{
		"tools/call": func(ctx context.Context, _ *Incoming) (any, error) {
			close(started)
			<-ctx.Done()
			close(stopped)
			return nil, ctx.Err()
		},
	})
	h.peerSend(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block"}}`)
	waitClosed(t, started, "the handler starting")
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		h.s.Close()
	}()
	waitClosed(t, stopped, "the handler's context ending on Close")
	waitClosed(t, closed, "Close returning once its handler ended")
	h.events.waitFor(t, "the peer's request cancelled by Close", func(e Event) bool {
		sc, ok := e.(StateChanged)
		return ok && sc.Ref.Incoming && sc.To == Cancelled && sc.Reason == "session closed"
	})
}

// Progress from a handler carries exactly what it knows: no total when the
// total is unknown (0 or less), fractions as they are.
func TestIncomingProgressFrames(t *testing.T) {
	h := newServerHarness(t, map[string]Handler{
		"tools/call": func(ctx context.Context, in *Incoming) (any, error) {
			for _, p := range [][2]float64{{1, 0}, {2, -1}, {2.5, 10}} {
				if err := in.NotifyProgress(p[0], p[1], ""); err != nil {
					return nil, err
				}
			}
			return map[string]bool{"ok": true}, nil
		},
	})
	h.peerSend(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7}}}`)
	for _, want := range []string{
		`{"progressToken":7,"progress":1}`,
		`{"progressToken":7,"progress":2}`,
		`{"progressToken":7,"progress":2.5,"total":10}`,
	} {
		if m := h.readFrame(); m.Method != "notifications/progress" || string(m.Params) != want {
			t.Fatalf("progress %s %s, want %s", m.Method, m.Params, want)
		}
	}
	if m := h.readFrame(); string(m.Result) != `{"ok":true}` {
		t.Fatalf("answer %+v", m)
	}
}

func TestIncomingIgnoreCancellationAnswersAnyway(t *testing.T) {
	release := make(chan struct{})
	h := newServerHarness(t, map[string]Handler{
		"tools/call": func(ctx context.Context, in *Incoming) (any, error) {
			in.IgnoreCancellation()
			select {
			case <-release:
			case <-time.After(hangGuard): // the test failed before it let go
			}
			return map[string]bool{"stubborn": true}, nil
		},
	})
	h.peerSend(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"stubborn"}}`)
	h.events.waitFor(t, "started", func(e Event) bool { _, ok := e.(RequestStarted); return ok })
	// IgnoreCancellation runs in the handler; make sure it ran first.
	for deadline := time.Now().Add(10 * time.Second); ; {
		h.s.mu.Lock()
		ig := h.s.table.in[`4`] != nil && h.s.table.in[`4`].ignoreCancel
		h.s.mu.Unlock()
		if ig {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the handler never called IgnoreCancellation (hang guard)")
		}
		time.Sleep(time.Millisecond)
	}
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"stop"}}`)
	h.peerSend(`{"jsonrpc":"2.0","id":"sync","method":"ping"}`)
	h.readFrame() // ping answer: the cancel was processed before it
	close(release)
	if m := h.readFrame(); string(m.ID) != "4" || string(m.Result) != `{"stubborn":true}` {
		t.Fatalf("stubborn answer %+v", m)
	}
	if !contains(h.logs.String(), "will answer anyway") {
		t.Errorf("log: %s", h.logs.String())
	}
}

func TestInvalidCancellationsAreIgnored(t *testing.T) {
	h := newServerHarness(t, nil)
	for _, p := range []string{`{"requestId":99}`, `{"reason":"no id"}`, `"garbage"`, `{"requestId":{"x":1}}`, `{"requestId":"sync"}`} {
		h.peerSend(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":%s}`, p)
	}
	// A cancel for an id not seen yet is kept a while (it may have
	// overtaken its request over HTTP): request "sync" is not run.
	h.peerSend(`{"jsonrpc":"2.0","id":"sync","method":"ping"}`)
	h.peerSend(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	if m := h.readFrame(); string(m.ID) != `"after"` {
		t.Fatalf("session stopped answering, or answered the request cancelled first: %+v", m)
	}
	logs := h.logs.String()
	for _, want := range []string{"no such request in flight", "malformed", "invalid request id", "cancel received before its request: not run"} {
		if !contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

func TestProgressTokenInjection(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, `{"_meta":{"progressToken":5}}`},
		{`{}`, `{"_meta":{"progressToken":5}}`},
		{`{"name":"x"}`, `{"_meta":{"progressToken":5},"name":"x"}`},
		{`{"_meta":{"a":1},"name":"x"}`, `{"_meta":{"a":1,"progressToken":5},"name":"x"}`},
		{`[1,2]`, `[1,2]`},
	}
	for _, c := range cases {
		got, err := withProgressToken([]byte(c.in), IntID(5))
		if err != nil || string(got) != c.want {
			t.Errorf("withProgressToken(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}
