package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

func TestStartShowsServerAndHandshake(t *testing.T) {
	d, _ := newTestModel(t, 100, 30)
	d.waitScreen("fake-server 1.2.3", "MCP 2025-11-25", "memory", "● ready", "2 completed",
		"initialize", "tools/list", "TOOLS 4", "sleep", "Sleeps, reporting")
	d.waitScreen("Try it: select sleep, press enter twice, then c")
}

func TestCancelSleepGoesCancellingThenCancelled(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	call := d.callTool(tc, "sleep")
	d.waitScreen("tools/call sleep", "pending", "1 pending")
	if strings.Contains(d.screen(), "Try it") {
		t.Error("the first-run hint stays after a tool was called")
	}

	tc.clock.Advance(2 * time.Second)
	d.waitScreen("2.0s") // elapsed counts on the model's clock
	d.key("c")
	d.waitScreen("cancelling", "1 cancelling", `cancel requested for #3 tools/call sleep: "cancelled by user"`)
	d.waitFor("the cancel to reach the server", func() bool { return len(tc.server.seenCancels()) == 1 })
	got := tc.server.seenCancels()[0]
	if string(got.RequestID) != "3" || got.Reason != "cancelled by user" {
		t.Errorf("server saw cancel %s %q, want 3 %q", got.RequestID, got.Reason, "cancelled by user")
	}
	select {
	case <-call.Ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the server's handler was not cancelled")
	}

	d.waitTimer(tc) // the settle window
	tc.clock.Advance(time.Second)
	d.waitScreen("⊘ cancelled", "1 cancelled")
	r := d.m.table.Selected()
	if r.State != session.Cancelled || r.Reason != "cancelled by user" {
		t.Errorf("row is %v %q", r.State, r.Reason)
	}
	d.waitFor("detail with cancel times", func() bool { return r.Info != nil })
	d.waitScreen(`cancel "cancelled by user" · decided +2.0s · sent +2.0s · settled after 1.0s`,
		"ran 2.0s (until the cancel was sent)")
	if got := r.Ran(tc.clock.Now()); got != 2*time.Second {
		t.Errorf("ran %v, want 2s: the settle window is not run time", got)
	}
}

func TestCancelRefusedForInitialize(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	d.m.table.SelectSeq(1)
	d.keyDone("c")
	d.waitScreen("#1 initialize: initialize cannot be cancelled (MCP spec)")
	tc.barrier(t)
	if n := len(tc.server.seenCancels()); n != 0 {
		t.Errorf("server saw %d cancels after a refused one", n)
	}
	if r := d.m.store.Get(1); r.State != session.Completed {
		t.Errorf("initialize is %v after a refused cancel", r.State)
	}
}

func TestCancelRefusedForFinishedRequest(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	d.m.table.SelectSeq(2)
	d.keyDone("c")
	d.waitScreen("#2 tools/list: request cannot be cancelled: it has already ended (completed)")
	tc.barrier(t)
	if n := len(tc.server.seenCancels()); n != 0 {
		t.Errorf("server saw %d cancels", n)
	}
}

func TestCancelRefusedForUnknownRequest(t *testing.T) {
	d, _ := newTestModel(t, 100, 30)
	// A row the session never had, as after a session was replaced.
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{Items: []any{session.RequestStarted{Info: session.RequestInfo{
		Seq: 99, ID: session.StringID("ghost"), Method: "tools/call", Tool: "ghost", Started: testEpoch}}}}})
	d.m.table.SelectSeq(99)
	d.key("c")
	d.waitScreen(`#"ghost" tools/call ghost: no such request: "ghost"`)
}

func TestCancelRefusedForIncomingRequest(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{Items: []any{session.RequestStarted{Info: session.RequestInfo{
		Seq: 50, ID: session.IntID(1), Incoming: true, Method: "sampling/createMessage", Started: testEpoch}}}}})
	d.m.table.SelectSeq(50)
	d.keyDone("c")
	d.waitScreen("incoming #1 sampling/createMessage: the server sent this request: only the server can cancel it")
	tc.barrier(t)
	if r := d.m.store.Get(1); r.State != session.Completed {
		t.Errorf("our request with the same id is %v", r.State)
	}
	if n := len(tc.server.seenCancels()); n != 0 {
		t.Errorf("server saw %d cancels", n)
	}
}

func TestCancelAllCancelsEveryPending(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	for range 3 {
		d.callTool(tc, "sleep")
	}
	d.waitScreen("3 pending")
	d.key("C")
	d.waitScreen("cancelling all 3 pending requests", "3 cancelling")
	d.waitFor("3 cancels at the server", func() bool { return len(tc.server.seenCancels()) == 3 })
	for _, c := range tc.server.seenCancels() {
		if c.Reason != "cancelled by user" {
			t.Errorf("reason %q", c.Reason)
		}
	}
	d.waitTimer(tc) // CancelAll has returned, so its settle window is armed
	tc.clock.Advance(time.Second)
	d.waitScreen("3 cancelled")

	d.key("C")
	d.waitScreen("nothing to cancel: no request is pending")
}

func TestCancelWithTypedReason(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	d.callTool(tc, "sleep")
	d.key("R")
	d.waitScreen("reason for cancelling #3 tools/call sleep:")
	d.typeText("demo over")
	d.key("enter")
	d.waitScreen(`cancel requested for #3 tools/call sleep: "demo over"`)
	d.waitFor("the cancel at the server", func() bool { return len(tc.server.seenCancels()) == 1 })
	if got := tc.server.seenCancels()[0].Reason; got != "demo over" {
		t.Errorf("reason %q, want %q", got, "demo over")
	}
}

func TestCancelWithReasonAbandoned(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	d.callTool(tc, "sleep")
	d.key("R")
	d.typeText("nope")
	d.keyDone("esc")
	tc.barrier(t)
	if n := len(tc.server.seenCancels()); n != 0 {
		t.Errorf("an abandoned reason prompt sent %d cancels", n)
	}
	if r := d.m.table.Selected(); r.State != session.Pending {
		t.Errorf("state %v", r.State)
	}
}

func TestStubbornLateResponseBadge(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	call := d.callTool(tc, "stubborn")
	d.key("c")
	d.waitTimer(tc)
	tc.clock.Advance(time.Second)
	d.waitScreen("⊘ cancelled", "settled after 1.0s")
	tc.clock.Advance(200 * time.Millisecond)
	call.Reply(map[string]any{"content": []any{map[string]any{"type": "text", "text": "done anyway"}}})
	d.waitScreen("late response ignored (+1.2s)")
	r := d.m.table.Selected()
	if r.State != session.Cancelled || r.LateOrNone().Responses != 1 {
		t.Errorf("row %v with %d late responses", r.State, r.LateOrNone().Responses)
	}
	d.waitScreen("late traffic: 1 frame (1 response, 0 progress)", `+1.2s   response {"jsonrpc":"2.0","id":3,"result":{"content":[{"text":"done anyway"`)
}

// A late error response is a late response too, not progress: the
// badge says "late response ignored" and the counts agree.
func TestStubbornLateErrorResponseBadge(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	call := d.callTool(tc, "stubborn")
	d.key("c")
	d.waitTimer(tc)
	tc.clock.Advance(time.Second)
	d.waitScreen("⊘ cancelled", "settled after 1.0s")
	tc.clock.Advance(200 * time.Millisecond)
	call.Fail(&session.RPCError{Code: -32000, Message: "gave up anyway"})
	d.waitScreen("late traffic: 1 frame")
	r := d.m.table.Selected()
	if r.State != session.Cancelled || r.LateOrNone().Responses != 1 || r.LateOrNone().Progress != 0 {
		t.Errorf("row %v with %d late responses and %d late progress; want 1 response, 0 progress", r.State, r.LateOrNone().Responses, r.LateOrNone().Progress)
	}
	s := d.screen()
	if !strings.Contains(s, "late response ignored (+1.2s)") || !strings.Contains(s, "late traffic: 1 frame (1 response, 0 progress)") ||
		strings.Contains(s, "progress after cancel") {
		t.Errorf("the late error is not shown as a late response:\n%s", s)
	}
}

func TestLateProgressBadgeCountsEveryFrame(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	d.callTool(tc, "sleep")
	d.key("c")
	d.waitScreen("cancelling")
	ref := session.Ref{Seq: 3, ID: session.IntID(3)}
	frames := []session.LateFrame{{Kind: session.LateProgress, AfterCancel: 100 * time.Millisecond, Data: []byte(`{"progress":1}`)}}
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{Items: []any{&rows.LateRun{Ref: ref, Count: 5, Frames: frames}}}})
	d.waitScreen("progress after cancel ×5")
}

func TestProgressBarAndHistory(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	call := d.callTool(tc, "sleep")
	for i := 1; i <= 4; i++ {
		tc.clock.Advance(time.Second)
		if err := call.In.NotifyProgress(float64(i), 10, "step"); err != nil {
			t.Fatal(err)
		}
	}
	d.waitScreen("████░░░░░░ 4/10", "progress 4 updates", "+4.0s   4/10 step")
}

func TestStrayAndDuplicateBadges(t *testing.T) {
	d, _ := newTestModel(t, 120, 30)
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{
		Items: []any{session.StrayArrived{At: testEpoch, Kind: session.LateResponse, ID: session.IntID(77),
			Data: []byte(`{"jsonrpc":"2.0","id":77,"result":{}}`)}},
		Duplicates: map[uint64]int{2: 2},
	}})
	d.waitScreen("77   response", "? no such id", "stray", "duplicate ×2")
}

func TestFailedRequestShowsError(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	call := d.callTool(tc, "fail")
	call.Fail(&session.RPCError{Code: -32000, Message: "it broke"})
	d.waitScreen("✗ failed", "it broke (code -32000)", "1 failed")
	d.waitScreen("error -32000")
}

func TestToolErrorIsNoSuccess(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	call := d.callTool(tc, "fail")
	call.Reply(map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "no such file"}}})
	// Its own badge in the table and the detail, its own count in the header.
	d.waitScreen("✗ tool error", "2 completed · 1 tool error", "result · the tool reported an error (isError)", "no such file")
	if s := d.screen(); strings.Contains(s, "✓ completed · id 3") || strings.Contains(s, "3 completed") {
		t.Errorf("a tool error shows as a success:\n%s", s)
	}
	if !d.m.table.Selected().ToolError {
		t.Error("row not marked as a tool error")
	}
	// The filter finds it by what the screen calls it.
	d.m.table.SetFilter("tool error")
	if rows := d.m.table.rows(); len(rows) != 1 || rows[0].Tool != "fail" {
		t.Errorf("filter \"tool error\" found %d rows", len(rows))
	}
}

func TestTimeoutKeySetsTimeoutForNewCalls(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	d.key("t")
	d.waitScreen("timeout for new calls")
	d.typeText("1.5")
	d.key("enter")
	d.waitScreen("new calls time out after 1.5s", "timeout 1.5s")
	d.callTool(tc, "sleep")
	d.waitTimer(tc)
	tc.clock.Advance(1500 * time.Millisecond)
	d.waitScreen("◔ timed out", "1 timed out")
	d.waitFor("the cancel sent on timeout", func() bool { return len(tc.server.seenCancels()) == 1 })
	if got := tc.server.seenCancels()[0].Reason; got != "timeout after 1.5s" {
		t.Errorf("reason %q", got)
	}

	d.key("t")
	d.key("ctrl+u")
	d.typeText("soon")
	d.key("enter")
	// Refused, the prompt stays open on what was typed, with why.
	d.waitScreen(`timeout for new calls (5s, 500ms; 0 for none): soon`, `✗ timeout "soon": use a duration such as 5s or 500ms`)
	if !d.m.prompt.active {
		t.Fatal("an invalid timeout closed the prompt")
	}
	d.key("ctrl+u")
	d.typeText("2s")
	d.key("enter")
	d.waitScreen("new calls time out after 2.0s")
	if d.m.prompt.active {
		t.Error("a valid timeout left the prompt open")
	}
}

func TestCountsAreSaidInTheRightNumber(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	d.m.toggleBottom(bottomStderr)
	d.waitScreen("SERVER STDERR 0 lines")
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{Stderr: []session.StderrLine{{Line: "one"}}}})
	d.waitScreen("SERVER STDERR 1 line ")
	d.m.toggleBottom(bottomWire)
	d.waitScreen("WIRE LOG 5 frames")
	d.callTool(tc, "sleep")
	d.m.setFocus(focusRequests)
	d.key("C")
	d.waitScreen("cancelling the one pending request")
}

func TestRerunSendsTheSameRequestAgain(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	first := d.callTool(tc, "sleep")
	d.key("r")
	second := tc.server.nextCall()
	if second.Tool != "sleep" || string(second.Args) != string(first.Args) {
		t.Errorf("re-run called %s %s, want sleep %s", second.Tool, second.Args, first.Args)
	}
	d.waitScreen("2 pending")

	d.m.table.SelectSeq(1)
	d.key("r")
	d.waitScreen("initialize runs once per connection; ctrl+r reconnects")
}

func TestServerGoneFailsPendingAndOffersReconnect(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	d.callTool(tc, "sleep")
	tc.server.srv.Close()
	d.waitScreen("● closed", "connection closed by the server", "ctrl+r reconnect", "✗ failed", "1 failed", "session closed")
	d.key("c")
	d.waitScreen("it has already ended (failed)")
}

func TestServerExitStatusAndLastStderrInHeader(t *testing.T) {
	d, _ := newTestModel(t, 120, 30)
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{
		Stderr: []session.StderrLine{{At: testEpoch, Line: "panic: boom"}},
		Items:  []any{session.Closed{At: testEpoch, Err: transporttest.Exited(3, "panic: boom")}},
	}})
	d.waitScreen("● closed", "server exited with status 3 · last stderr: panic: boom · ctrl+r reconnect",
		"server exited with status 3; press ctrl+r to reconnect")
	if d.m.header.Height() != 2 {
		t.Error("the header does not grow a line for the exit")
	}
}

func TestReconnectStartsANewSession(t *testing.T) {
	clock := newFakeClock()
	conns := []*testConn{newTestConn(t, clock, defaultFakeTools()), newTestConn(t, clock, defaultFakeTools())}
	conns[1].server.info = map[string]any{"name": "second-server", "version": "2"}
	next := 0
	m := New(Options{now: clock.Now, static: true, frameInterval: time.Millisecond,
		Connect: func(context.Context) (*connect.Conn, error) { c := conns[next]; next++; return c.conn, nil }})
	d := newDriver(t, m, 100, 30)
	d.waitScreen("fake-server 1.2.3", "TOOLS 4")
	d.callTool(conns[0], "sleep")
	d.key("ctrl+r")
	d.waitScreen("second-server 2", "REQUESTS 2")
	d.waitFor("the old pending call cancelled", func() bool {
		cs := conns[0].server.seenCancels()
		return len(cs) == 1 && cs[0].Reason == "client reconnecting"
	})
}

func TestQuitCancelsPendingThenCloses(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	d.callTool(tc, "sleep")
	d.key("q")
	d.waitScreen("● closing")
	d.waitFor("quit", func() bool { return d.quit })
	d.waitFor("the cancel at the server", func() bool { return len(tc.server.seenCancels()) > 0 })
	cs := tc.server.seenCancels()
	if len(cs) != 1 || cs[0].Reason != "client closing" {
		t.Errorf("server saw cancels %+v, want one with reason %q", cs, "client closing")
	}
	select {
	case <-tc.client.Done():
	default:
		t.Error("the session is still open after quit")
	}
}

func TestCtrlCTwiceForcesQuit(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	d.callTool(tc, "stubborn")
	d.key("ctrl+c")
	d.waitScreen("press ctrl+c again to force quit")
	d.key("ctrl+c")
	d.waitFor("quit", func() bool { return d.quit })
}

func TestFilters(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	d.key("/")
	d.typeText("stub")
	d.waitScreen("TOOLS 1/4 /stub", "stubborn")
	if strings.Contains(d.screen(), "echo") {
		t.Error("the filter left echo in the list")
	}
	d.key("enter")
	d.key("esc")
	d.waitScreen("TOOLS 4")

	d.callTool(tc, "sleep")
	d.key("tab")
	d.key("/")
	d.typeText("tools/")
	d.waitScreen("REQUESTS 2/3 /tools/")
	if strings.Contains(d.screen(), "initialize") && !strings.Contains(d.screen(), "DETAIL #") {
		t.Error("initialize passes a tools/ filter")
	}
	d.key("enter")

	// / again edits the filter as it was typed.
	d.key("/")
	if got := d.m.prompt.Value(); got != "tools/" {
		t.Errorf("/ reopened the filter on %q, want tools/", got)
	}
	d.typeText("Nope")
	d.waitScreen("REQUESTS 0/3 /tools/Nope", "no match for /tools/Nope; esc clears")
	d.key("enter")
	d.key("shift+tab")
	d.key("/")
	d.typeText("zzz")
	d.waitScreen("TOOLS 0/4 /zzz", "no match for /zzz")
}

func TestCancelAllShownCancelsOnlyTheFilteredRows(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	d.callTool(tc, "sleep")
	d.callTool(tc, "stubborn")
	d.callTool(tc, "sleep")
	d.waitScreen("3 pending")
	d.m.setFocus(focusRequests)
	d.key("/")
	d.typeText("stubborn")
	d.key("enter")
	d.keyDone("C")
	d.waitScreen("cancelling 1 pending request that the filter /stubborn shows; 2 hidden pending requests left running",
		"2 pending · 1 cancelling")
	// The server reads the cancel on its own goroutine.
	d.waitFor("the cancel to reach the server", func() bool { return len(tc.server.seenCancels()) > 0 })
	if cs := tc.server.seenCancels(); len(cs) != 1 || string(cs[0].RequestID) != "4" {
		t.Errorf("server saw cancels %+v, want only #4 stubborn", cs)
	}
	d.key("esc")
	d.keyDone("C")
	d.waitScreen("cancelling all 2 pending requests")
}

func TestFocusAndNavigation(t *testing.T) {
	d, _ := newTestModel(t, 100, 30)
	if d.m.focus != focusTools {
		t.Fatal("tools have focus first")
	}
	d.key("down")
	if got := d.m.tools.Selected().Name; got != "stubborn" {
		t.Errorf("down selected %s", got)
	}
	d.key("tab")
	d.key("up")
	if r := d.m.table.Selected(); r.Seq != 1 {
		t.Errorf("up selected #%d", r.Seq)
	}
	d.key("down")
	if r := d.m.table.Selected(); r.Seq != 2 {
		t.Errorf("down selected #%d", r.Seq)
	}
	d.key("tab")
	if d.m.focus != focusBottom {
		t.Error("tab did not reach the detail pane")
	}
	d.key("w")
	d.waitScreen("WIRE LOG", "→ initialize #1", "← result #1")
	d.key("enter")
	d.waitScreen("esc back")
	d.key("esc")
	d.key("e")
	d.waitScreen("SERVER STDERR 0 lines")
	d.key("e")
	d.waitScreen("DETAIL #2 tools/list")
	d.key("?")
	d.waitScreen("force quit", "reconnect", "cancel with reason")
	d.key("esc")
	d.settle()
}

func TestMouseSelectsAndScrolls(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	for range 3 {
		d.callTool(tc, "sleep")
	}
	l := d.m.layout
	d.send(tea.MouseClickMsg{X: l.table.x + 5, Y: l.table.y + 2, Button: tea.MouseLeft})
	if r := d.m.table.Selected(); r.Seq != 1 || d.m.focus != focusRequests {
		t.Errorf("click selected #%d with focus %d", r.Seq, d.m.focus)
	}
	d.send(tea.MouseClickMsg{X: l.tools.x + 3, Y: l.tools.y + 1 + 2*2, Button: tea.MouseLeft})
	if got := d.m.tools.Selected().Name; got != "echo" {
		t.Errorf("click on the third tool selected %s", got)
	}
	d.send(tea.MouseWheelMsg{X: l.bottom.x + 1, Y: l.bottom.y + 1, Button: tea.MouseWheelDown})
	if d.m.detail.scroll.offset == 0 && d.m.detail.scroll.total > d.m.detail.scroll.height {
		t.Error("the wheel did not scroll the detail pane")
	}
}

func TestHostileStringsAreEscaped(t *testing.T) {
	clock := newFakeClock()
	evil := "\x1b]0;pwned\x07\x1b[2J\u202eevil\x1b]52;c;Y2xpcA==\x07"
	tools := []map[string]any{{"name": "x" + evil, "description": "desc" + evil,
		"inputSchema": json.RawMessage(`{"type":"object"}`)}}
	tc := newTestConn(t, clock, tools)
	tc.server.info = map[string]any{"name": "srv" + evil, "version": "1" + evil}
	m := New(Options{Connect: tc.connector(), now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 120, 40)
	d.waitScreen(`srv\x1b]0;pwned\x07\x1b[2J\u202eevil`)
	d.send(feedMsg{forGen: forGen{m.gen}, batch: &rows.Batch{Stderr: []session.StderrLine{{Line: "err" + evil}}}})
	d.key("e")
	d.waitScreen(`err\x1b]0;pwned`)
	out := m.render()
	for _, raw := range []string{"\x1b]0;", "\x1b[2J", "\u202e", "\x1b]52;", "\x07"} {
		if strings.Contains(out, raw) {
			t.Errorf("raw %q from the server reached the screen", raw)
		}
	}
}

func TestResizeKeepsEveryLineInside(t *testing.T) {
	d, tc := newTestModel(t, 80, 24)
	d.callTool(tc, "sleep")
	sizes := [][2]int{{80, 24}, {60, 16}, {200, 60}, {61, 17}, {120, 35}}
	check := func(full bool) {
		if d.m.fullHelp != full {
			d.key("?")
		}
		checkSizes(t, d, sizes)
	}
	check(false)
	check(true)
}

func checkSizes(t *testing.T, d *driver, sizes [][2]int) {
	t.Helper()
	for _, size := range sizes {
		d.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		out := d.m.render()
		lines := strings.Split(out, "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for i, l := range lines {
			if w := lipWidth(l); w > size[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", size[0], size[1], i, w, l)
			}
		}
	}
}

func TestTableCountsFollowEveryState(t *testing.T) {
	d, _ := newTestModel(t, 120, 30)
	ref := func(seq uint64) session.Ref { return session.Ref{Seq: seq, ID: session.IntID(int64(seq))} }
	var items []any
	for seq := uint64(10); seq < 16; seq++ {
		items = append(items, session.RequestStarted{Info: session.RequestInfo{Seq: seq, ID: session.IntID(int64(seq)),
			Method: "tools/call", Tool: "t", State: session.Pending, Started: testEpoch}})
	}
	items = append(items,
		session.StateChanged{Ref: ref(11), From: session.Pending, To: session.Completed, At: testEpoch},
		session.StateChanged{Ref: ref(12), From: session.Pending, To: session.Failed, At: testEpoch, Reason: "bad"},
		session.StateChanged{Ref: ref(13), From: session.Pending, To: session.TimedOut, At: testEpoch},
		session.StateChanged{Ref: ref(14), From: session.Pending, To: session.Cancelling, At: testEpoch},
		session.StateChanged{Ref: ref(15), From: session.Pending, To: session.Cancelling, At: testEpoch},
		session.StateChanged{Ref: ref(15), From: session.Cancelling, To: session.Cancelled, At: testEpoch.Add(300 * time.Millisecond)},
	)
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{Items: items}})
	d.waitScreen("1 pending 1 cancelling ✓3 ✗1 ◔1 ⊘1", "⊘ cancelled", "◔ timed out", "✗ failed", "✓ completed")
	d.send(tea.WindowSizeMsg{Width: 200, Height: 30})
	d.waitScreen("1 pending · 1 cancelling · 3 completed · 1 failed · 1 timed out · 1 cancelled")
}

func TestStaleGenerationIsIgnored(t *testing.T) {
	d, _ := newTestModel(t, 100, 30)
	before := d.m.store.Len()
	d.send(feedMsg{forGen: forGen{d.m.gen - 1}, batch: &rows.Batch{Items: []any{session.RequestStarted{Info: session.RequestInfo{Seq: 40}}}}})
	if d.m.store.Len() != before {
		t.Error("a batch from an old connection changed the table")
	}
	d.send(cancelDoneMsg{forGen: forGen{d.m.gen - 1}, err: errors.New("old")})
	if strings.Contains(d.screen(), "old") {
		t.Error("a result from an old connection reached the status line")
	}
	// A connection a reconnect overtook is closed, not used.
	other := newTestConn(t, newFakeClock(), defaultFakeTools())
	d.send(connectedMsg{forGen: forGen{d.m.gen - 1}, conn: other.conn})
	d.waitFor("the overtaken connection closed", func() bool {
		select {
		case <-other.client.Done():
			return true
		default:
			return false
		}
	})
	if d.m.conn == other.conn {
		t.Error("the UI took a connection of an old generation")
	}
}

func TestBackgroundColorPicksLightOrDarkStyles(t *testing.T) {
	d, _ := newTestModel(t, 100, 30)
	dark := d.m.c.Styles
	d.send(tea.BackgroundColorMsg{Color: color.White})
	light := d.m.c.Styles
	if light == dark || light.StatePending.GetForeground() == dark.StatePending.GetForeground() {
		t.Error("a light background kept the dark styles")
	}
	if d.m.table.paint().styles != light {
		t.Error("the table kept painting with the old styles")
	}
}

func TestCancelWithReasonRefusedWithoutAsking(t *testing.T) {
	d, tc := newTestModel(t, 100, 30)
	d.m.table.SelectSeq(1)
	d.waitFor("the session's answer for initialize", func() bool {
		return d.m.cancellable.known && d.m.cancellable.seq == 1
	})
	d.keyDone("R")
	d.waitScreen("#1 initialize: initialize cannot be cancelled (MCP spec)")
	if d.m.prompt.active {
		t.Error("R asked for a reason the session would refuse")
	}
	tc.barrier(t)
	if n := len(tc.server.seenCancels()); n != 0 {
		t.Errorf("server saw %d cancels", n)
	}
}

func TestWireLogMarksNoiseAndShowsPrettyJSON(t *testing.T) {
	d, tc := newTestModel(t, 120, 35)
	a := tc.pipe // the pipe end under the tap
	if err := a.Inject(wire.KindNoise, []byte("not json at all")); err != nil {
		t.Fatal(err)
	}
	d.key("w")
	d.waitScreen("WIRE LOG", "← noise not json at all", "→ initialize #1 · ", `"method":"initialize"`)
	d.setFocusBottom()
	d.key("g")
	d.key("enter")
	d.waitScreen("esc back", `"method": "initialize",`, `"protocolVersion": "2025-11-25"`)
}

// setFocusBottom tabs to the pane under the requests.
func (d *driver) setFocusBottom() {
	for d.m.focus != focusBottom {
		d.key("tab")
	}
}

func TestStrayProgressRowPerToken(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	for _, token := range []string{`"a"`, `"b"`, `"a"`} {
		frame := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + `,"progress":1}}`
		if err := tc.pipe.Inject(wire.KindFrame, []byte(frame)); err != nil {
			t.Fatal(err)
		}
	}
	counts := map[string]int{}
	d.waitFor("three stray progress frames", func() bool {
		clear(counts)
		n := 0
		for _, r := range d.m.store.Rows {
			if r.IsStray() {
				counts[r.ID.String()] = r.StrayOrNone().Count
				n += r.StrayOrNone().Count
			}
		}
		return n == 3
	})
	if len(counts) != 2 || counts[`"a"`] != 2 || counts[`"b"`] != 1 {
		t.Errorf("stray rows by token %v, want \"a\":2 \"b\":1", counts)
	}
	d.waitScreen(`"a"  notifications/prog`, `"b"  notifications/prog`, "stray ×2")
}

func TestTimedOutDetailShowsCancelSent(t *testing.T) {
	clock := newFakeClock()
	// The client's cancellations wait, so the test looks at the UI between
	// the state change and the cancel's send.
	tc, hold := newTestConnHolding(t, clock, defaultFakeTools(), func(frame []byte) bool {
		return bytes.Contains(frame, []byte(`"notifications/cancelled"`))
	})
	t.Cleanup(hold.Release) // before the session closes
	m := New(Options{Connect: tc.connector(), now: clock.Now, static: true, frameInterval: time.Millisecond,
		Timeout: 1500 * time.Millisecond})
	d := newDriver(t, m, 120, 30)
	d.waitScreen("TOOLS 4")
	d.callTool(tc, "sleep")
	d.waitTimer(tc)
	clock.Advance(1500 * time.Millisecond)
	d.waitScreen("◔ timed out")
	recvWithin(t, hold.Held(), "the timeout's cancel held on its way out")
	r := d.m.table.Selected()
	// The record fetched on the state change has no send time yet.
	d.waitFor("the timed-out row's record", func() bool { return r.Info != nil })
	clock.Advance(300 * time.Millisecond)
	hold.Release()
	d.waitFor("the cancel at the server", func() bool { return len(tc.server.seenCancels()) == 1 })
	d.waitScreen(`timeout "timeout after 1.5s" · decided +1.5s · sent +1.8s`)
}

func TestCancelSendFailureShowsInDetail(t *testing.T) {
	d, _ := newTestModel(t, 120, 30)
	ref := session.Ref{Seq: 10, ID: session.IntID(10)}
	d.m.table.SelectSeq(10) // selected when the batch brings it
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{Items: []any{
		session.RequestStarted{Info: session.RequestInfo{Seq: 10, ID: ref.ID, Method: "tools/call", Tool: "t",
			State: session.Pending, Started: testEpoch}},
		session.StateChanged{Ref: ref, From: session.Pending, To: session.Cancelling, At: testEpoch, Reason: "cancelled by user"},
		session.CancelSent{Ref: ref, At: testEpoch, Err: errors.New("send: pipe closed")},
	}}})
	d.waitScreen(`cancel "cancelled by user" · decided +0.0s · not sent: send: pipe closed`)
}

func TestToolListCutShortIsShownAsAWarning(t *testing.T) {
	clock := newFakeClock()
	tc := newTestConn(t, clock, defaultFakeTools())
	tc.server.nextCursor = "again" // the second page points at itself
	m := New(Options{Connect: tc.connector(), now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 160, 30)
	d.waitScreen("TOOLS 8", "tools/list: the server repeated a nextCursor")
}

// t on a pending request edits that request's timeout, from now, through
// the session; the prompt says which request it is for.
func TestTimeoutKeyEditsTheSelectedPendingRequest(t *testing.T) {
	d, tc := newTestModel(t, 140, 30)
	d.callTool(tc, "sleep")
	d.waitScreen("tools/call sleep", "1 pending", "timeout none")
	d.key("tab") // the requests: t is for the selected one
	d.key("t")
	d.waitScreen("timeout of #3 tools/call sleep from now")
	d.typeText("2")
	d.key("enter")
	d.waitScreen("#3 tools/call sleep times out 2.0s from now", "timeout 2.0s, restarted by progress")
	d.waitTimer(tc)
	tc.clock.Advance(2 * time.Second)
	d.waitScreen("◔ timed out", "1 timed out")
	d.waitFor("the cancel sent on timeout", func() bool { return len(tc.server.seenCancels()) == 1 })
	if got := tc.server.seenCancels()[0].Reason; got != "timeout after 2s" {
		t.Errorf("reason %q", got)
	}
}

func TestStillSendingIsLiveAndKeepsCountingAfterCancelled(t *testing.T) {
	d, tc := newTestModel(t, 140, 30)
	d.callTool(tc, "sleep")
	d.key("c")
	d.waitScreen("cancelling")
	ref := session.Ref{Seq: 3, ID: session.IntID(3)}
	sent := tc.clock.Now()
	late := func(n int, wait time.Duration) {
		tc.clock.Advance(wait)
		f := session.LateFrame{Kind: session.LateProgress, At: tc.clock.Now(), AfterCancel: tc.clock.Now().Sub(sent), Data: []byte(`{"progress":1}`)}
		d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{Items: []any{&rows.LateRun{Ref: ref, Count: n, Frames: []session.LateFrame{f}, Last: f}}}})
	}
	late(4, 500*time.Millisecond)
	d.waitScreen("still sending: 4 progress +0.5s")
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{Items: []any{session.StateChanged{Ref: ref,
		From: session.Cancelling, To: session.Cancelled, At: tc.clock.Now()}}}})
	d.waitScreen("⊘ cancelled")
	late(1, 5*time.Second)
	// The count keeps rising after the row turned cancelled.
	d.waitScreen("still sending: 5 progress +5.5s")
	tc.clock.Advance(rows.StillSendingFor)
	d.send(tickMsg{})
	d.waitScreen("progress after cancel ×5 (last +5.5s)")
}

func TestLongToolNameWrapsWhenSelected(t *testing.T) {
	l := newToolList(&common{Styles: newStyles(true), Keys: defaultKeyMap()})
	l.SetSize(20, 12)
	l.SetTools([]mcp.Tool{{Name: "trigger-long-running-operation", Description: "long"}, {Name: "get-structured-content-now", Description: "other"}}, nil)
	screen := ansi.Strip(l.View())
	if !strings.Contains(screen, "› trigger-long-     \n  running-operation") {
		t.Errorf("the selected name does not wrap whole:\n%s", screen)
	}
	if !strings.Contains(screen, "  get-structured-co…") {
		t.Errorf("an unselected name is not clipped:\n%s", screen)
	}
}

func TestToolsListChangedRelistsWithoutReconnecting(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	d.callTool(tc, "sleep")
	tc.server.tools = append(defaultFakeTools(), map[string]any{"name": "fresh", "description": "New tool.",
		"inputSchema": json.RawMessage(`{"type":"object"}`)})
	if err := tc.server.srv.Notify("notifications/tools/list_changed", nil); err != nil {
		t.Fatal(err)
	}
	d.waitScreen("TOOLS 5", "fresh", "the server's tools changed (tools/list_changed): 5 tools, was 4")
	// The same session: the history stays, the new tools/list is a row.
	d.waitScreen("REQUESTS 4", "tools/call sleep")
	if d.m.gen != 1 {
		t.Errorf("re-listing reconnected (generation %d)", d.m.gen)
	}

	tc.server.tools = defaultFakeTools()[:1]
	d.key("L")
	d.waitScreen("TOOLS 1", "tools listed again: 1 tool, was 5", "REQUESTS 5")
}

func TestWireLogPutsCancelFieldsAndLateMarksFirstAt80Columns(t *testing.T) {
	d, tc := newTestModel(t, 80, 30)
	d.callTool(tc, "sleep")
	d.key("c")
	d.waitScreen("cancelling")
	d.key("w")
	d.waitScreen(`→ cancelled requestId=3 reason="cancelled by user"`)
	d.waitTimer(tc)
	tc.clock.Advance(time.Second)
	d.waitScreen("⊘ cancelled")
	// A late progress frame, as the session saw it: its record is marked.
	tc.clock.Advance(500 * time.Millisecond)
	at := tc.clock.Now()
	frame := []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":4,"total":10}}`)
	d.send(feedMsg{forGen: forGen{d.m.gen}, batch: &rows.Batch{
		Items: []any{session.LateArrived{Ref: session.Ref{Seq: 3, ID: session.IntID(3)},
			Late: session.LateFrame{Kind: session.LateProgress, At: at, AfterCancel: 1500 * time.Millisecond, Data: frame}}},
		Wire: []wire.Record{{At: at, Dir: wire.In, Kind: wire.KindFrame, Data: frame, Size: len(frame)}},
	}})
	d.waitScreen("← late progress token=3 4/10")
	for _, l := range strings.Split(d.screen(), "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("line %d wide: %q", w, l)
		}
	}
}

func TestFocusShowsWithoutColour(t *testing.T) {
	d, _ := newTestModel(t, 100, 30)
	lines := func() []string { return strings.Split(ansi.Strip(d.m.render()), "\n") }
	edgeRows := func() (first, last int) {
		first = -1
		for i, l := range lines() {
			if strings.Contains(l, focusEdge) {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		return first, last
	}
	for _, tc := range []struct {
		focus focusArea
		title string
		pane  rect
	}{
		{focusTools, "▸ TOOLS 4", d.m.layout.tools},
		{focusRequests, "▸ REQUESTS 2", d.m.layout.table},
		{focusBottom, "▸ DETAIL #", d.m.layout.bottom},
	} {
		d.m.setFocus(tc.focus)
		s := strings.Join(lines(), "\n")
		if strings.Count(s, focusMark) != 1 || !strings.Contains(s, tc.title) {
			t.Errorf("focus %d: want one marked title %q:\n%s", tc.focus, tc.title, s)
		}
		if first, last := edgeRows(); first != tc.pane.y || last != tc.pane.y+tc.pane.h-1 {
			t.Errorf("focus %d: heavy edge on lines %d-%d, want %d-%d:\n%s", tc.focus, first, last, tc.pane.y, tc.pane.y+tc.pane.h-1, s)
		}
	}
	d.m.toggleBottom(bottomWire)
	if s := ansi.Strip(d.m.render()); !strings.Contains(s, "▸ WIRE LOG") {
		t.Errorf("the wire log does not show its focus:\n%s", s)
	}
	d.m.toggleBottom(bottomStderr)
	if s := ansi.Strip(d.m.render()); !strings.Contains(s, "▸ SERVER STDERR") {
		t.Errorf("stderr does not show its focus:\n%s", s)
	}
	d.m.setFocus(focusTools)
	d.key("enter")
	if s := ansi.Strip(d.m.render()); !strings.Contains(s, "▸ CALL sleep") || strings.Contains(s, "▸ TOOLS") {
		t.Errorf("the editor does not take the focus mark:\n%s", s)
	}
}

func TestFullHelpExplainsSettleFilterCancelAndRetention(t *testing.T) {
	d, _ := newTestModel(t, 120, 40)
	d.key("?")
	d.waitScreen("ELAPSED stops when a cancel is sent", "settle window (1.0s, --settle)", "settled after",
		"only the pending rows it shows", "list tools again", "write transcript", "the last 10,000 frames")
	assertLinesFit(t, d, 120)
	d.send(tea.WindowSizeMsg{Width: 80, Height: 40})
	d.waitScreen("ELAPSED stops when a cancel")
	assertLinesFit(t, d, 80)
}

func assertLinesFit(t *testing.T, d *driver, w int) {
	t.Helper()
	for _, l := range strings.Split(d.m.render(), "\n") {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("line %d wide at %d: %q", lw, w, ansi.Strip(l))
		}
	}
}
