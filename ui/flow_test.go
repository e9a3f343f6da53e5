package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// The flows below run the real Bubble Tea program (teatest) against the
// built-in demo server, or a scripted one, and compare the screen at the
// interesting moments with golden files: go test ./ui/... -update writes
// them. Goldens are deterministic: the client session and the UI share a
// fake clock, spinners are static, and styles are stripped.

const flowWidth, flowHeight = 100, 30

// probe wraps the model to publish each rendered screen, so a test can
// wait for one without touching the model from its own goroutine.
type probe struct {
	m    *Model
	last atomic.Pointer[string]
}

// Init implements tea.Model.
func (p *probe) Init() tea.Cmd { return p.m.Init() }

// Update implements tea.Model.
func (p *probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.m.Update(msg)
	return p, cmd
}

// View implements tea.Model.
func (p *probe) View() tea.View {
	v := p.m.View()
	s := ansi.Strip(v.Content)
	p.last.Store(&s)
	return v
}

func (p *probe) screen() string {
	if s := p.last.Load(); s != nil {
		return *s
	}
	return ""
}

// flow is one teatest program on a connection.
type flow struct {
	t     *testing.T
	tm    *teatest.TestModel
	p     *probe
	clock *clocktest.Clock
}

// startFlow runs the UI on conn.
func startFlow(t *testing.T, clock *clocktest.Clock, conn *connect.Conn, demoHint bool) *flow {
	return startFlowWith(t, clock, conn, demoHint, nil)
}

// startFlowWith is startFlow with options of its own (set may be nil).
func startFlowWith(t *testing.T, clock *clocktest.Clock, conn *connect.Conn, demoHint bool, set func(*Options)) *flow {
	used := false
	opts := Options{now: clock.Now, static: true, Demo: demoHint, frameInterval: time.Millisecond,
		Connect: func(context.Context) (*connect.Conn, error) {
			if used {
				return nil, io.EOF
			}
			used = true
			return conn, nil
		}}
	if set != nil {
		set(&opts)
	}
	m := New(opts)
	p := &probe{m: m}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(flowWidth, flowHeight),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	f := &flow{t: t, tm: tm, p: p, clock: clock}
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	})
	return f
}

// demoConn is the built-in demo server on an in-memory pipe, with the
// client on the fake clock.
func demoConn(t *testing.T, clock *clocktest.Clock) *connect.Conn {
	a, b := transporttest.Pipe()
	srv := demo.NewSession(b, io.Discard)
	conn := connect.Attach(connect.Spec{Name: "demo"}, a, connect.Options{Session: session.Config{Clock: clock}})
	t.Cleanup(func() {
		conn.Close()
		srv.Close()
	})
	return conn
}

// waitScreen waits until the screen holds every one of subs and has not
// changed for a few polls, and returns it.
func (f *flow) waitScreen(subs ...string) string {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var last string
	same := 0
	for time.Now().Before(deadline) {
		s := f.p.screen()
		ok := true
		for _, sub := range subs {
			ok = ok && strings.Contains(s, sub)
		}
		if ok && s == last {
			same++
			if same >= 3 {
				return s
			}
		} else {
			same = 0
		}
		last = s
		time.Sleep(15 * time.Millisecond)
	}
	f.t.Fatalf("screen never showed %q; last screen:\n%s", subs, last)
	return ""
}

// golden compares the settled screen with testdata/<test>/<name>.golden
// and returns it.
func (f *flow) golden(name string, subs ...string) string {
	f.t.Helper()
	s := f.waitScreen(subs...)
	f.t.Run(name, func(t *testing.T) { golden.RequireEqual(t, []byte(s)) })
	return s
}

// keys sends key presses, one by one.
func (f *flow) keys(ks ...string) {
	for _, k := range ks {
		f.tm.Send(keyMsg(k))
	}
}

// typeText types s.
func (f *flow) typeText(s string) { f.tm.Type(s) }

// waitTimer waits until the client armed a timer (a settle window).
func (f *flow) waitTimer() { f.waitTimers(1) }

// waitTimers waits until the client armed n timers.
func (f *flow) waitTimers(n int) {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.clock.Armed() < n {
		if time.Now().After(deadline) {
			f.t.Fatalf("%d timers armed, want %d; screen:\n%s", f.clock.Armed(), n, f.p.screen())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// callWith opens the editor on the selected tool, replaces each field's
// value in order, and sends.
func (f *flow) callWith(values ...string) {
	f.keys("enter")
	f.waitScreen("CALL ")
	for i, v := range values {
		if i > 0 {
			f.keys("tab")
		}
		f.keys("ctrl+u")
		f.typeText(v)
	}
	f.keys("enter")
}

func TestFlowSleepCancel(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, demoConn(t, clock), true)
	// initialize's record and the session's cancel answer arrive on their own.
	f.golden("start", "Try it: select sleep", "TOOLS 9", "2 completed", "DETAIL #1 initialize  1/",
		"cannot cancel: initialize cannot be cancelled")

	// One step of an hour: no progress arrives while the test runs.
	f.callWith("3600", "1")
	f.waitScreen("tools/call sleep", "⠋ pending", "sent tools/call sleep as request #3")
	clock.Advance(2 * time.Second)
	f.keys("c")
	// The detail shows the cancel's send time as soon as it was written.
	f.golden("cancelling", "⠋ cancelling", "1 cancelling", `cancel requested for #3 tools/call sleep: "cancelled by user"`,
		"decided +2.0s · sent +2.0s")

	f.waitTimer()
	clock.Advance(time.Second)
	// ELAPSED and ran stop when the cancel was sent (2.0s), not after the
	// settle window (3.0s), which the detail shows as its own figure.
	f.golden("cancelled", "⊘ cancelled", "1 cancelled", "ran 2.0s (until the cancel was sent)", "sent +2.0s · settled after 1.0s")
	if strings.Contains(f.p.screen(), "3.0s") {
		t.Errorf("the settle window is counted in the run time:\n%s", f.p.screen())
	}
}

func TestFlowStubbornLateBadge(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, demoConn(t, clock), true)
	f.waitScreen("TOOLS 9")
	f.keys("down")
	// It answers 5s (real time) after the call, cancelled or not: room
	// for the key press on a loaded machine.
	f.callWith("5")
	f.waitScreen("tools/call stubborn", "⠋ pending")
	f.keys("c")
	f.waitScreen("⠋ cancelling")
	f.waitTimer()
	clock.Advance(time.Second)
	f.waitScreen("⊘ cancelled", "settled after 1.0s")
	clock.Advance(200 * time.Millisecond)
	f.golden("late", "late response ignored (+1.2s)", "late traffic: 1 frame")
}

func TestFlowCancelAll(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, demoConn(t, clock), true)
	f.waitScreen("TOOLS 9")
	for i := range 3 {
		f.callWith("3600", "1")
		f.waitScreen(english.Plural(i+1, "pending")[:2] + "pending")
	}
	f.waitScreen("3 pending")
	f.keys("C")
	f.golden("cancelling", "3 cancelling", "cancelling all 3 pending requests", "decided +0.0s · sent +0.0s")
	f.waitTimer() // CancelAll has returned, so its settle window is armed
	clock.Advance(time.Second)
	f.golden("cancelled", "3 cancelled")
}

func TestFlowCancelInitializeRefused(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, demoConn(t, clock), false)
	f.waitScreen("2 completed", "TOOLS 9")
	f.keys("tab", "g", "c")
	f.golden("refused", "#1 initialize: initialize cannot be cancelled (MCP spec)")
}

func TestFlowServerCrashMidCall(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	conn, err := connect.Start(connect.Spec{Name: "crashy", Command: exe, Env: []string{crashServerEnv + "=1"}},
		connect.Options{Session: session.Config{Clock: clock}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	f := startFlow(t, clock, conn, false)
	f.waitScreen("crashy 0.1", "TOOLS 1")
	f.keys("enter")
	f.waitScreen("CALL crash")
	f.keys("enter")
	f.golden("crashed", "server exited with status 3 · last stderr: panic: boom", "✗ failed", "1 failed")
	// The UI stays usable: the stderr pane has the whole story.
	f.keys("e")
	f.golden("stderr", "SERVER STDERR 2 lines", "working on it")
}

// evil holds what a hostile server puts in its strings: a title change,
// a screen clear, a clipboard write, colour, and a bidi override.
const evil = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07\x1b[31mRED\u202eevil"

func TestFlowHostileServerIsEscaped(t *testing.T) {
	clock := newFakeClock()
	tools := []map[string]any{{"name": "x" + evil, "description": "about" + evil,
		"inputSchema": json.RawMessage(`{"type":"object"}`)}}
	a, b := transporttest.Pipe()
	server := newFakeServer(t, b, tools)
	server.info = map[string]any{"name": "srv" + evil, "version": "6" + evil}
	conn := connect.Attach(connect.Spec{}, a, connect.Options{Session: session.Config{Clock: clock}})
	t.Cleanup(func() { conn.Close() })
	f := startFlow(t, clock, conn, false)
	f.waitScreen(`srv\x1b]0;pwned`, `TOOLS 1`)

	f.keys("enter")
	f.waitScreen("CALL x")
	f.keys("enter")
	call := server.nextCall()
	call.Reply(map[string]any{"content": []any{map[string]any{"type": "text", "text": "result" + evil}}})
	if err := a.Inject(wire.KindStderr, []byte("stderr"+evil)); err != nil {
		t.Fatal(err)
	}
	f.golden("result", `result\x1b]0;pwned`, "✓ completed")
	f.keys("e")
	f.golden("stderr", `stderr\x1b]0;pwned`)

	out, err := io.ReadAll(f.tm.Output())
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"\x1b]0;pwned", "\x1b]52;", "\x1b[31mRED", "\u202e", "pwned\x07"} {
		if bytes.Contains(out, []byte(raw)) {
			t.Errorf("the terminal received %q from the server raw", raw)
		}
	}
	if !bytes.Contains(out, []byte(`\x1b]0;pwned`)) {
		t.Error("the escaped form never reached the terminal: is the check above looking at the right output?")
	}
}

func TestFlowToolErrorAndWireLogAt80Columns(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, demoConn(t, clock), false)
	f.waitScreen("TOOLS 9")
	f.keys("G", "k", "k", "k", "k") // fail, the last tool but ask, roots, research and spin
	f.keys("enter")
	f.waitScreen("CALL fail")
	f.keys("enter")
	f.golden("tool-error", "✗ tool error", "1 tool error", "result · the tool reported an error (isError)")

	f.tm.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	f.keys("w", "tab", "tab")
	f.golden("wire-80", "▸ WIRE LOG", "→ tools/call fail #3 ·", "← result #3 isError ·")
}
