package ui

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/session"
)

// driver is a small synchronous event loop for model tests: Update runs
// on the test goroutine, commands run in goroutines and their messages
// come back through msgs, like tea.Program without a terminal.
type driver struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
	quit bool
}

func newDriver(t *testing.T, m *Model, w, h int) *driver {
	d := &driver{t: t, m: m, msgs: make(chan tea.Msg, 1024)}
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	d.exec(m.Init())
	return d
}

// exec runs cmd in the background; batches fan out.
func (d *driver) exec(cmd tea.Cmd) { d.execTracked(cmd, nil) }

// execTracked is exec that counts the commands, batches included, in wg.
func (d *driver) execTracked(cmd tea.Cmd, wg *sync.WaitGroup) {
	if cmd == nil {
		return
	}
	if wg != nil {
		wg.Add(1)
	}
	go func() {
		if wg != nil {
			defer wg.Done()
		}
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				d.execTracked(c, wg)
			}
			return
		}
		if msg != nil {
			d.msgs <- msg
		}
	}()
}

// keyDone sends a key press and handles messages until every command
// the key started has returned: a cancel it asked for has been written.
func (d *driver) keyDone(k string) {
	d.t.Helper()
	_, cmd := d.m.Update(keyMsg(k))
	var wg sync.WaitGroup
	d.execTracked(cmd, &wg)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	d.waitFor("the commands of key "+k, func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
}

// send runs Update with msg on this goroutine.
func (d *driver) send(msg tea.Msg) {
	if _, ok := msg.(tea.QuitMsg); ok {
		d.quit = true
		return
	}
	_, cmd := d.m.Update(msg)
	d.exec(cmd)
}

// key sends a key press: "c", "enter", "ctrl+c", "tab".
func (d *driver) key(k string) { d.send(keyMsg(k)) }

// typeText sends each rune as a key press.
func (d *driver) typeText(s string) {
	for _, r := range s {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// waitFor handles messages until cond holds, failing after a deadline.
func (d *driver) waitFor(what string, cond func() bool) {
	d.t.Helper()
	deadline := time.After(waitLimit)
	for !cond() {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-time.After(5 * time.Millisecond):
			// Some conditions change outside the model (the clock's timers).
		case <-deadline:
			d.t.Fatalf("timed out waiting for %s; screen:\n%s", what, d.screen())
		}
	}
}

// waitLimit bounds every wait in these tests: well under the package
// timeout, so a hang fails the test that hung, saying what it waited for.
const waitLimit = 10 * time.Second

// recvWithin receives from ch, failing the test if nothing comes within
// waitLimit; what says what the value means. ok is false if ch closed.
func recvWithin[T any](t testing.TB, ch <-chan T, what string) (v T, ok bool) {
	t.Helper()
	select {
	case v, ok = <-ch:
		return v, ok
	case <-time.After(waitLimit):
		t.Fatalf("timed out after %s waiting for %s", waitLimit, what)
		return v, false
	}
}

// waitScreen waits until the screen holds every one of subs.
func (d *driver) waitScreen(subs ...string) {
	d.t.Helper()
	d.waitFor(strings.Join(subs, " & "), func() bool {
		s := d.screen()
		for _, sub := range subs {
			if !strings.Contains(s, sub) {
				return false
			}
		}
		return true
	})
}

// settle handles messages that arrive within a short quiet period.
func (d *driver) settle() {
	for {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-time.After(100 * time.Millisecond):
			return
		}
	}
}

// screen is the rendered screen without styles.
func (d *driver) screen() string { return ansi.Strip(d.m.render()) }

// keyMsg builds the key press tea would deliver for k.
func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	}
	if strings.HasPrefix(k, "ctrl+") && len(k) == 6 {
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	r := []rune(k)
	if len(r) != 1 {
		panic("keyMsg: unknown key " + k)
	}
	if r[0] >= 'A' && r[0] <= 'Z' {
		return tea.KeyPressMsg{Code: r[0] + ('a' - 'A'), ShiftedCode: r[0], Text: k, Mod: tea.ModShift}
	}
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// newTestModel is a model on a fake server, on the fake clock, without
// animation, at w×h.
func newTestModel(t *testing.T, w, h int) (*driver, *testConn) {
	clock := newFakeClock()
	tc := newTestConn(t, clock, defaultFakeTools())
	m := New(Options{Connect: tc.connector(), now: clock.Now, static: true, Demo: true,
		frameInterval: time.Millisecond})
	d := newDriver(t, m, w, h)
	d.waitFor("tools listed", func() bool {
		return len(m.tools.Tools()) > 0 && m.store.Counts[session.Completed] == 2
	})
	return d, tc
}

// callTool selects a tool by name and calls it with its default
// arguments: enter opens the editor, enter sends. It returns the call as
// the fake server sees it.
func (d *driver) callTool(tc *testConn, name string) *fakeCall {
	d.t.Helper()
	d.m.setFocus(focusTools)
	if !d.m.tools.Select(name) {
		d.t.Fatalf("no tool %q", name)
	}
	d.key("enter")
	d.key("enter")
	c := tc.server.nextCall()
	d.waitFor(name+" row selected", func() bool {
		r := d.m.table.Selected()
		return r != nil && r.Tool == name && r.Seq == callSeq(c)
	})
	return c
}

// callSeq is the Seq the client gave a call: its id, since the client
// numbers ids and Seqs alike when nothing arrives from the server.
func callSeq(c *fakeCall) uint64 {
	n, _ := strconv.ParseUint(c.In.ID.String(), 10, 64)
	return n
}

// waitTimer waits until the client armed a timer (a settle window).
func (d *driver) waitTimer(tc *testConn) {
	d.t.Helper()
	d.waitFor("a timer", func() bool { return tc.clock.Armed() > 0 })
}
