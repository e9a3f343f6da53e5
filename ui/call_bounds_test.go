package ui

import (
	"testing"
	"time"
)

// The UI's --max-timeout reaches each call it sends, and stays when the
// t key changes the timeout: it is not ten times the timeout.
func TestMaxTimeoutOptionBoundsCalls(t *testing.T) {
	clock := newFakeClock()
	tc := newTestConn(t, clock, defaultFakeTools())
	m := New(Options{Connect: tc.connector(), now: clock.Now, static: true, frameInterval: time.Millisecond,
		Timeout: 2 * time.Second, MaxTimeout: 3 * time.Second})
	d := newDriver(t, m, 120, 30)
	d.waitScreen("TOOLS 4")
	d.callTool(tc, "sleep")
	// The detail reads the session's record of the call.
	d.waitScreen("timeout 2.0s, restarted by progress · at most 3.0s in all")
}
