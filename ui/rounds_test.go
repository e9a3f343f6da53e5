package ui

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// modernDemoAnswering is Options.ConnectAnswering on the demo server in
// protocol 2026-07-28, where its ask tool answers input_required.
func modernDemoAnswering(t *testing.T, clock *clocktest.Clock) func(context.Context, *mcp.ClientSide) (*connect.Conn, error) {
	return func(_ context.Context, cs *mcp.ClientSide) (*connect.Conn, error) {
		a, b := transporttest.Pipe()
		srv := demo.NewSession(b, io.Discard)
		o := connect.Options{Protocol: session.Era2026Version, Session: session.Config{Clock: clock}}
		cs.Install(&o.Session)
		o.Capabilities = cs.Capabilities(session.Era2026Version)
		conn := connect.Attach(connect.Spec{Name: "demo"}, a, o)
		t.Cleanup(func() {
			conn.Close()
			srv.Close()
		})
		return conn, nil
	}
}

// newRoundsModel is the UI on the modern demo, its tools listed.
func newRoundsModel(t *testing.T) *driver {
	clock := newFakeClock()
	m := New(Options{ConnectAnswering: modernDemoAnswering(t, clock), now: clock.Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 140, 34)
	d.waitFor("tools listed", func() bool { return len(m.tools.Tools()) > 0 })
	return d
}

// callAsk calls the demo's ask tool with its defaults (an elicitation
// form) and waits for its row to need input.
func callAsk(d *driver) *rows.Row {
	d.t.Helper()
	d.m.setFocus(focusTools)
	if !d.m.tools.Select("ask") {
		d.t.Fatal("no ask tool")
	}
	d.key("enter")
	d.key("enter")
	var row *rows.Row
	d.waitFor("a row that needs input", func() bool {
		for _, r := range d.m.store.Rows {
			if r.Tool == "ask" && r.NeedsInput() {
				row = r
				return true
			}
		}
		return false
	})
	return row
}

// A tools/call answered input_required needs input: its question opens in
// the panel of the server's requests; the answer goes in a retry, a new
// row "round 2 of #N" that completes with it.
func TestInputRequiredAnsweredInARetry(t *testing.T) {
	d := newRoundsModel(t)
	first := callAsk(d)
	id := first.ID.String()
	d.waitScreen("THE SERVER ASKS · elicitation (form) #"+id, `input "ask" of round 1: the answer goes in the retry`, "[Ada")
	d.key("esc")
	d.waitScreen("? needs input", "asks ask (elicitation/create)")
	d.key("enter") // the row's question again
	d.waitScreen("THE SERVER ASKS · elicitation (form) #" + id)
	d.key("enter") // accept, with the defaults
	var retry *rows.Row
	d.waitFor("the retry completed", func() bool {
		for _, r := range d.m.store.Rows {
			if r.Retry != nil && r.Retry.N == 2 && r.Retry.First == first.Ref() && r.State == session.Completed && r.Info != nil {
				retry = r
				return true
			}
		}
		return false
	})
	if retry.ID.String() == id {
		t.Fatalf("the retry reused id %s", id)
	}
	if !strings.Contains(string(retry.Params), `"requestState":"mcpoke-demo/ask/v1:elicitation"`) ||
		!strings.Contains(string(retry.Params), `"inputResponses":{"ask":{"action":"accept","content":{"name":"Ada"`) {
		t.Errorf("retry params %s", retry.Params)
	}
	if !strings.Contains(string(retry.Info.Result), "in its retry's inputResponses") {
		t.Errorf("retry result %s", retry.Info.Result)
	}
	d.waitScreen("answered → #"+retry.ID.String(), "round 2 of #"+id)
	if first.NeedsInput() {
		t.Error("the first row still needs input")
	}
}

// Cancelling a row that needs input abandons it: its panel closes and
// no retry is sent.
func TestCancellingBetweenRoundsAbandons(t *testing.T) {
	d := newRoundsModel(t)
	first := callAsk(d)
	d.waitFor("the panel", func() bool { return d.m.asks.panel != nil })
	d.key("esc")
	d.m.table.SelectSeq(first.Seq)
	d.key("c")
	d.waitFor("abandoned", func() bool { return first.Rounds.Abandoned })
	d.waitScreen("abandoned between rounds")
	// A request after it: everything sent before it was read.
	if _, err := d.m.conn.Session.Do(context.Background(), "tools/list", nil, session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	d.settle()
	for _, r := range d.m.store.Rows {
		if r.Retry != nil {
			t.Fatalf("a retry was sent after abandoning: #%s", r.ID)
		}
	}
	if d.m.asks.panel != nil || len(d.m.asks.open) != 0 {
		t.Error("the abandoned question is still open")
	}
}

func TestFlowInputRequired(t *testing.T) {
	clock := newFakeClock()
	m := New(Options{ConnectAnswering: modernDemoAnswering(t, clock), now: clock.Now, static: true, frameInterval: time.Millisecond})
	p := &probe{m: m}
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(flowWidth, flowHeight),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	f := &flow{t: t, tm: tm, p: p, clock: clock}
	t.Cleanup(func() {
		_ = tm.Quit()
		tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	})
	f.waitScreen("2 completed", "MCP 2026-07-28")
	f.keys("G", "k", "k", "k") // ask, the last tool but roots, research and spin
	f.waitScreen("› ask")
	f.keys("enter")
	f.waitScreen("CALL ask")
	f.keys("enter")
	f.golden("asked", "THE SERVER ASKS · elicitation (form) #3", `input "ask" of round 1`)
	f.keys("esc")
	f.golden("needs-input", "? needs input", "asks ask (elicitation/create)")
	f.keys("enter")
	f.waitScreen("THE SERVER ASKS")
	f.keys("enter")
	f.golden("completed", "answered → #4", "round 2 of #3", "4 completed", "[text] the client answered elicitation/create")
}

// C abandons the rows that need input too.
func TestCancelAllAbandonsRowsThatNeedInput(t *testing.T) {
	d := newRoundsModel(t)
	first := callAsk(d)
	d.waitFor("the panel", func() bool { return d.m.asks.panel != nil })
	d.key("esc")
	d.key("C")
	d.waitFor("abandoned", func() bool { return first.Rounds.Abandoned })
	d.waitScreen("abandoned between rounds")
}
