package check

import (
	"encoding/json"
	"fmt"
	"testing"
)

// The following calls of the closed-stream part keep the tool's
// arguments but make a numeric duration short; arguments that are no
// object go as they are.
func TestQuickArgsShortenOnlyANumericDuration(t *testing.T) {
	for args, want := range map[string]string{
		`{"seconds":3,"text":"x"}`:      `{"seconds":0.1,"text":"x"}`,
		`{"Delay":5,"n":2}`:             `{"Delay":0.1,"n":2}`,
		`{"wait":"long","seconds":"3"}`: `{"seconds":"3","wait":"long"}`,
		`{}`:                            `{}`,
		`null`:                          `null`,
		`[1]`:                           `[1]`,
	} {
		if got := string(quickArgs(&Tool{Args: json.RawMessage(args)})); got != want {
			t.Errorf("quick args of %s: %s; want %s", args, got, want)
		}
	}
}

// The ids of the calls in flight are listed, or none said.
func TestWorkingListNamesTheCallsInFlight(t *testing.T) {
	if got := workingList(nil); got != "no other call" {
		t.Errorf("no ids: %q", got)
	}
	if got := workingList([]string{"4", `"a"`}); got != `calls 4, "a"` {
		t.Errorf("two ids: %q", got)
	}
}

// A server that works on after the stream closed: the part counts the
// following calls it made, as its fact says, and quotes the wire.
func TestClosedStreamCountsItsFollowingCallsAndQuotesTheWire(t *testing.T) {
	t.Parallel()
	c := runModern(t, deaf, "sleep", `{"seconds":3,"steps":10}`)
	n := c.Evidence.Counts["followingCalls"]
	if c.Status != Fail || n < 2 || !hasFact(c, fmt.Sprintf("the work went on: %d following calls", n)) || !hasFact(c, "closed stream: wire, ") {
		t.Errorf("status %s, %d following calls counted, facts %q; want a failure after 2 or more, said, and the wire quoted", c.Status, n, c.Evidence.Facts)
	}
}
