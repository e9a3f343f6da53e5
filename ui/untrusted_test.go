package ui

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// hostile is what a server can put in an error message or an id.
const hostile = "\x1b]0;pwned\x07\x1b[2J\u202eevil\u0085"

// sgr matches the colour sequences the styles write themselves.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// assertNoRawControls fails if the rendered screen, styles aside, holds
// a control character other than a newline, or a bidi override.
func assertNoRawControls(t *testing.T, d *driver) {
	t.Helper()
	out := sgr.ReplaceAllString(d.m.render(), "")
	for _, r := range out {
		if (r < 0x20 && r != '\n') || (r >= 0x7f && r < 0xa0) || isBidiOrInvisibleRune(r) {
			t.Errorf("raw %U reached the screen:\n%q", r, out)
			return
		}
	}
}

func isBidiOrInvisibleRune(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f
}

func TestStatusErrorsAreEscaped(t *testing.T) {
	escaped := `\x1b]0;pwned\x07\x1b[2J\u202eevil\u0085`
	start := func(t *testing.T, tc *testConn, connect connectFunc) *driver {
		if connect == nil {
			connect = tc.connector()
		}
		m := New(Options{Connect: connect, now: newFakeClock().Now, static: true, frameInterval: time.Millisecond})
		return newDriver(t, m, 200, 30)
	}
	t.Run("server would not start", func(t *testing.T) {
		d := start(t, nil, func(context.Context) (*connect.Conn, error) {
			return nil, errors.New("server exited with status 1; last stderr: " + hostile)
		})
		d.waitScreen("could not start the server: server exited with status 1; last stderr: ")
		assertNoRawControls(t, d)
		d.waitScreen("could not start the server: server exited with status 1; last stderr: " + escaped)
	})
	t.Run("initialize failed", func(t *testing.T) {
		tc := newTestConn(t, newFakeClock(), defaultFakeTools())
		tc.server.initErr = &session.RPCError{Code: -32603, Message: "no " + hostile}
		d := start(t, tc, nil)
		d.waitScreen("initialize: no ")
		assertNoRawControls(t, d)
		d.waitScreen("initialize: no " + escaped + " (code -32603)")
	})
	t.Run("tools/list failed", func(t *testing.T) {
		tc := newTestConn(t, newFakeClock(), defaultFakeTools())
		tc.server.listErr = &session.RPCError{Code: -32603, Message: "no " + hostile}
		d := start(t, tc, nil)
		d.waitScreen("tools/list failed: no ")
		assertNoRawControls(t, d)
		d.waitScreen("tools/list failed: no " + escaped + " (code -32603)")
	})
}

func TestServerChosenIDsAreEscaped(t *testing.T) {
	d, tc := newTestModel(t, 120, 30)
	// The id holds a raw RLO and a raw C1 control, both valid in JSON.
	frame := `{"jsonrpc":"2.0","id":"` + "\u202eevil\u0085" + `","method":"ping"}`
	if err := tc.pipe.Inject(wire.KindFrame, []byte(frame)); err != nil {
		t.Fatal(err)
	}
	var in *rows.Row
	d.waitFor("the incoming row", func() bool {
		for _, r := range d.m.store.Rows {
			if r.Incoming {
				in = r
			}
		}
		return in != nil
	})
	d.m.table.SelectSeq(in.Seq)
	d.m.setFocus(focusRequests)
	d.key("c") // the refusal names the row by its label
	d.waitScreen("ping: the server sent this request")
	assertNoRawControls(t, d)
	d.waitScreen(`DETAIL incoming #"\u202eevil\u0085" ping`, `· id "\u202eevil\u0085"`,
		`incoming #"\u202eevil\u0085" ping: the server sent this request`)
	if got := in.Label(); got != `incoming #"\u202eevil\u0085" ping` {
		t.Errorf("label %q", got)
	}
}

func TestServerThatCannotStartEndsTheUIWithItsError(t *testing.T) {
	m := New(Options{Connect: func(context.Context) (*connect.Conn, error) {
		return nil, errors.New("exec: \"nope\": executable file not found in $PATH")
	}, now: newFakeClock().Now, static: true, frameInterval: time.Millisecond})
	d := newDriver(t, m, 100, 30)
	d.waitFor("the UI to quit", func() bool { return d.quit })
	if err := m.StartErr(); err == nil || !strings.Contains(err.Error(), "executable file not found") {
		t.Errorf("StartErr = %v, want why the server did not start", err)
	}
	d.waitScreen("could not start the server: exec:")

	t.Run("initialize failed", func(t *testing.T) {
		tc := newTestConn(t, newFakeClock(), defaultFakeTools())
		tc.server.initErr = &session.RPCError{Code: -32603, Message: "not today"}
		m := New(Options{Connect: tc.connector(), now: newFakeClock().Now, static: true, frameInterval: time.Millisecond})
		d := newDriver(t, m, 100, 30)
		d.waitFor("the UI to quit", func() bool { return d.quit })
		if err := m.StartErr(); err == nil || !strings.Contains(err.Error(), "not today") {
			t.Errorf("StartErr = %v", err)
		}
	})
}
