package check

import (
	"strings"
	"testing"
)

// Check 9 skips a server with no tool that asks; when the server did
// send requests of its own during the run (not ones check 9 can
// provoke), the skip says how many, and only then.
func TestOwnRequestsSkipSaysWhatTheServerSent(t *testing.T) {
	t.Parallel()
	for _, pinging := range []bool{false, true} {
		// Check 10 skips at once on a pipe, but its pick calls the work
		// tool: the pinging server sends its one request then.
		rep := run(t, misbehaviour{noAskTool: true, pingOnCall: pinging}, testOptions(9, 10))
		c := expect(t, rep, 9, Skip, Should)
		said := strings.Contains(c.Reason, "(it did send ")
		if !strings.HasPrefix(c.Reason, "the server sent no requests of its own: none of its tools looks like one that asks") || said != pinging ||
			pinging && !strings.Contains(c.Reason, "(it did send 1 request of its own during the run") {
			t.Errorf("pinging %v: check 9 skipped with %q; want no asking tool, and the one request it sent said only when it sent one", pinging, c.Reason)
		}
	}
}
