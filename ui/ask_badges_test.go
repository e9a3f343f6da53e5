package ui

import "testing"

// A decline or a cancel is never called "answered", whoever chose it.
func TestAnswerWords(t *testing.T) {
	for answer, want := range map[string][2]string{
		"declined":                    {"declined", ""},
		"declined (--sample decline)": {"declined", "(--sample decline)"},
		"decline (--elicit decline)":  {"declined", "(--elicit decline)"},
		"cancel":                      {"cancelled", ""},
		"cancel (--elicit cancel)":    {"cancelled", "(--elicit cancel)"},
		"replied":                     {"answered", "replied"},
		"accept":                      {"answered", "accept"},
		"declinedness":                {"answered", "declinedness"},
	} {
		if w, h := answerWords(answer); w != want[0] || h != want[1] {
			t.Errorf("answerWords(%q) = %q, %q; want %q, %q", answer, w, h, want[0], want[1])
		}
	}
}
