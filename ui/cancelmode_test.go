package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// --cancel-mode other than notify is a probe: the header says it is on,
// and over Streamable HTTP the detail says what the cancel did.
func TestCancelModeShownInHeaderAndDetail(t *testing.T) {
	clock := newFakeClock()
	tc := newTestConn(t, clock, defaultFakeTools())
	m := New(Options{Connect: tc.connector(), now: clock.Now, static: true, frameInterval: time.Millisecond,
		CancelMode: session.CancelBoth})
	d := newDriver(t, m, 140, 30)
	d.waitFor("tools listed", func() bool {
		return len(m.tools.Tools()) > 0 && m.store.Counts[session.Completed] == 2
	})
	d.waitScreen("cancel both")
	// The fake server is in memory, with no request streams to close: as
	// over HTTP to a legacy server, the notification is all that goes.
	m.detail.transport = "http"
	d.callTool(tc, "sleep")
	d.key("c")
	d.waitFor("the cancel to reach the server", func() bool { return len(tc.server.seenCancels()) == 1 })
	d.waitScreen("sent +0.0s as notification")
}

func TestCancelWireText(t *testing.T) {
	for _, c := range []struct {
		transport string
		w         session.CancelWire
		want      string
	}{
		{"http", session.CancelWire{Notified: true}, " as notification"},
		{"http", session.CancelWire{StreamClosed: true}, " as stream closed, no notification"},
		{"http", session.CancelWire{StreamClosed: true, Notified: true}, " as notification and stream closed"},
		{"http", session.CancelWire{}, ""}, // tasks/cancel
		{"stdio", session.CancelWire{Notified: true}, ""},
	} {
		if got := cancelWireText(c.transport, c.w); got != c.want {
			t.Errorf("cancelWireText(%s, %+v) = %q, want %q", c.transport, c.w, got, c.want)
		}
	}
}

func TestHeaderHidesTheDefaultCancelMode(t *testing.T) {
	h := newHeader(&common{Styles: newStyles(true), Keys: defaultKeyMap()})
	h.SetSize(200, 1)
	if v := h.View(); containsPlain(v, "cancel ") {
		t.Errorf("header with the default cancel mode: %q", v)
	}
	h.cancelMode = session.CancelClose
	if v := h.View(); !containsPlain(v, "cancel close") {
		t.Errorf("header with --cancel-mode close: %q", v)
	}
}

func containsPlain(styled, sub string) bool { return strings.Contains(ansi.Strip(styled), sub) }

// --cancel-mode close under 2025-11-25 over HTTP closes the stream and
// sends nothing: the detail never says the cancel was sent.
func TestDetailCloseModeSaysNothingSent(t *testing.T) {
	d := newDetail(&common{Styles: newStyles(true), Keys: defaultKeyMap()})
	d.transport = "http"
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d.row = &rows.Row{Method: "tools/call", State: session.Cancelled, Started: start, Reason: "cancelled by the person",
		Cancel: &rows.Cancel{At: start.Add(time.Second), SentAt: start.Add(time.Second), Wire: session.CancelWire{StreamClosed: true}}}
	got := ansi.Strip(strings.Join(d.cancelLines(), "\n"))
	if !strings.Contains(got, "stream closed at +1.0s, nothing sent") || strings.Contains(got, " sent +") {
		t.Fatalf("cancel lines: %q", got)
	}
}
