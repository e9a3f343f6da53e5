package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// demoModel is a model on the built-in demo server (in 2026-07-28 when
// modern), on the fake clock.
func demoModel(t *testing.T, modern bool, w, h int) *driver {
	t.Helper()
	clock := newFakeClock()
	var conn *connect.Conn
	if modern {
		conn = modernDemoConn(t, clock)
	} else {
		conn = demoConn(t, clock)
	}
	m := New(Options{Connect: func(context.Context) (*connect.Conn, error) { return conn, nil },
		now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, w, h)
	// The handshake's rows come with the feed, maybe after the tools.
	d.waitFor("tools listed", func() bool { return len(m.tools.Tools()) > 0 && m.store.Counts[session.Completed] >= 2 })
	return d
}

// A list that follows nextCursor sends one request per page: the later
// pages' rows say which cursor they asked for, so they do not read as
// the same request sent twice.
func TestListPagesTellThemselvesApart(t *testing.T) {
	d := demoModel(t, false, 120, 35)
	d.key("2")
	d.waitScreen(`resources/list      ✓ completed         0.0s next page, cursor "`)
	first := 0
	for _, line := range strings.Split(d.screen(), "\n") {
		if strings.Contains(line, "resources/list") && !strings.Contains(line, "next page") {
			first++
		}
	}
	if first != 1 {
		t.Fatalf("%d resources/list rows without a cursor note, want the first page's only:\n%s", first, d.screen())
	}
}

// The empty log pane's hint is wrapped, not cut before the key it names.
func TestEmptyLogHintWraps(t *testing.T) {
	d := demoModel(t, true, 120, 35)
	d.key("l")
	d.waitScreen("SERVER LOG 0 messages", "sets one for the requests that follow")
}

// A wrapped stderr line's continuation is indented: it does not read as
// a line the server wrote.
func TestStderrContinuationIndented(t *testing.T) {
	p := newStderrPane(&common{Styles: newStyles(true), Keys: defaultKeyMap()})
	p.SetSize(40, 6)
	p.Add([]session.StderrLine{{Line: `time=2026-11-24T22:57:52Z level=INFO msg="response suppressed" id=5 method=tools/call`}, {Line: "next line"}}, 0)
	got := strings.Split(ansi.Strip(p.View()), "\n")
	want := []string{"SERVER STDERR 2 lines", "time=2026-11-24T22:57:52Z level=INFO", `  msg="response suppressed" id=5`, "  method=tools/call", "next line"}
	for i, w := range want {
		if strings.TrimRight(got[i], " ") != w {
			t.Fatalf("line %d = %q, want %q; pane:\n%s", i, got[i], w, strings.Join(got, "\n"))
		}
	}
}

// A request whose method and target do not fit its column is named by
// its verb, so the target shows: "read demo://readme", not
// "resources/read dem…".
func TestRowNamesTheTargetWhenCut(t *testing.T) {
	d := demoModel(t, false, 120, 35)
	d.key("2")
	d.waitScreen("About the demo server")
	d.key("enter")
	d.waitScreen("read demo://readme  ✓ completed")
}

// At 80 columns the one-line help keeps "? help" and "q quit", dropping
// keys before them rather than cutting the line.
func TestShortHelpKeepsHelpAndQuit(t *testing.T) {
	d := demoModel(t, false, 80, 24)
	lines := strings.Split(d.screen(), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); !strings.HasSuffix(last, "? help • q quit") || strings.Contains(last, "…") {
		t.Fatalf("help line %q", last)
	}
}

// A server that says its tools changed while the first tools/list is in
// flight: the first list's answer is not taken for the relist's ("19
// tools, was 0"); the relist's own answer says what changed.
func TestFirstListIsNotTheRelist(t *testing.T) {
	d, _ := newTestModel(t, 120, 35)
	tools := d.m.tools.Tools()
	d.m.tools.SetTools(nil, nil) // as before the first list answered
	if cmd := d.m.relistTools(true); cmd == nil {
		t.Fatal("no relist")
	}
	d.send(toolsListedMsg{forGen: forGen{d.m.gen}, tools: tools})
	if strings.Contains(d.m.status, "was 0") {
		t.Fatalf("the first list's answer was reported as the relist's: %q", d.m.status)
	}
	d.send(toolsListedMsg{forGen: forGen{d.m.gen}, tools: tools, relist: true})
	if want := "the server's tools changed (tools/list_changed): 4 tools, was 4"; d.m.status != want {
		t.Fatalf("status %q, want %q", d.m.status, want)
	}
	if d.m.relist.running {
		t.Fatal("the relist still counts as running")
	}
}

// The call form shows a tool's whole description and the focused
// field's when the form leaves room, instead of cutting them after a
// line or two.
func TestCallFormShowsWholeDescriptions(t *testing.T) {
	long := strings.Repeat("This tool does many things worth reading about. ", 6) + "THE END."
	tools := []map[string]any{{"name": "wordy", "description": long,
		"inputSchema": json.RawMessage(`{"type":"object","properties":{"how":{"type":"boolean","description":"` +
			strings.Repeat("Controls which mechanism is used, at length. ", 4) + `FIELD END."}}}`)}}
	clock := newFakeClock()
	tc := newTestConn(t, clock, tools)
	m := New(Options{Connect: tc.connector(), now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 120, 35)
	d.waitFor("tools listed", func() bool { return len(m.tools.Tools()) > 0 })
	d.key("enter")
	d.waitScreen("CALL wordy", "THE END.", "FIELD END.")
}

// Against a legacy server auto mode's server/discover fails by design:
// its row is a neutral "· probe" that says initialize followed, not a red
// error to chase, and the header does not count it as a failure.
func TestEraProbeRowOfALegacyServer(t *testing.T) {
	clock := newFakeClock()
	a, b := transporttest.Pipe()
	newFakeServer(t, b, defaultFakeTools())
	connect.ForgetEras()
	conn := connect.Attach(connect.Spec{Name: "legacy"}, a, connect.Options{Protocol: connect.ProtocolAuto, Session: session.Config{Clock: clock}})
	t.Cleanup(func() { conn.Close() })
	m := New(Options{Connect: func(context.Context) (*connect.Conn, error) { return conn, nil },
		now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 120, 35)
	d.waitScreen("server/discover     · probe", "legacy server: initialize followed", "initialize          ✓ completed", "MCP 2025-11-25 (legacy)")
	header := strings.Split(d.screen(), "\n")[0]
	if strings.Contains(header, "failed") || strings.Contains(header, "✗") || strings.Contains(d.screen(), "✗ failed") {
		t.Fatalf("the era probe of a legacy server counts as a failure:\n%s", d.screen())
	}
	for _, line := range strings.Split(d.screen(), "\n") {
		if strings.Contains(line, "1    server/discover") && strings.Contains(line, "Method not found") {
			t.Fatalf("the era probe's row shows its error as a fault: %q", line)
		}
	}
}

// The one-line help says what enter does where the focus is: call the
// tool, open a request's detail, show a frame's JSON.
func TestEnterHelpFollowsFocus(t *testing.T) {
	d := demoModel(t, false, 120, 35)
	last := func() string {
		lines := strings.Split(d.screen(), "\n")
		return lines[len(lines)-1]
	}
	if !strings.HasPrefix(last(), "enter call tool") {
		t.Fatalf("tools: %q", last())
	}
	d.key("tab")
	if !strings.HasPrefix(last(), "enter detail") {
		t.Fatalf("requests: %q", last())
	}
	d.key("w")
	d.m.setFocus(focusBottom)
	if !strings.HasPrefix(last(), "enter show JSON") {
		t.Fatalf("wire log: %q", last())
	}
}

// The demo's first-run hint is whole at 60 columns, and only where it
// applies: with the tools shown.
func TestDemoHintFitsAndFollowsThePane(t *testing.T) {
	clock := newFakeClock()
	conn := demoConn(t, clock)
	m := New(Options{Connect: func(context.Context) (*connect.Conn, error) { return conn, nil },
		now: clock.Now, static: true, frameInterval: time.Millisecond, Demo: true})
	d := newDriver(t, m, 60, 20)
	d.waitScreen("Try: enter twice on sleep, then c cancels it.")
	d.key("2")
	d.waitScreen("RESOURCES")
	if strings.Contains(d.screen(), "Try") {
		t.Fatalf("the hint about sleep shows over the resources:\n%s", d.screen())
	}
}

// A refused timeout shows what was typed, then why, with no "…" cutting
// the input's empty padding.
func TestPromptErrorLeavesTheInputWhole(t *testing.T) {
	d := demoModel(t, false, 120, 35)
	d.key("t")
	d.key("ctrl+u")
	d.typeText("xyz")
	d.key("enter")
	d.waitScreen(`✗ timeout "xyz"`)
	for _, line := range strings.Split(d.screen(), "\n") {
		if strings.Contains(line, `✗ timeout "xyz"`) && strings.Contains(line, "…") {
			t.Fatalf("the prompt's line cuts its padding: %q", line)
		}
	}
}

// The era probe's timeout is not restarted by progress (it has no
// progress token): its detail does not say it is.
func TestProbeTimeoutNotSaidRestartedByProgress(t *testing.T) {
	d := demoModel(t, true, 120, 35)
	d.waitScreen("server/discover     ✓ completed") // the row comes with the feed
	d.selectMethod("server/discover")
	d.waitScreen("DETAIL #1 server/discover", "timeout 30") // a local server: the probe waits as long as initialize
	if strings.Contains(d.screen(), "restarted by progress") {
		t.Fatal("the probe's timeout is said to be restarted by progress")
	}
}

// d (the timeline) is in the one-line help, where a newcomer finds it.
func TestShortHelpHasTheTimeline(t *testing.T) {
	d := demoModel(t, false, 140, 35)
	lines := strings.Split(d.screen(), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "d timeline") {
		t.Fatalf("the short help: %q", last)
	}
}

// The timeline takes the keys while it is open; closed, it gives them
// back to the pane that had them.
func TestTimelineGivesTheFocusBack(t *testing.T) {
	d := demoModel(t, false, 140, 35)
	d.m.setFocus(focusBottom)
	d.key("d")
	d.waitFor("the timeline", func() bool { return d.m.timelineOn })
	d.key("d")
	d.waitFor("the timeline closed", func() bool { return !d.m.timelineOn })
	if d.m.focus != focusBottom {
		t.Fatalf("after the timeline the focus is on %v, not back on the pane below the requests", d.m.focus)
	}
}
