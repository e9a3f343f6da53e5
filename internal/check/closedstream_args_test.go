package check

import (
	"encoding/json"
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
