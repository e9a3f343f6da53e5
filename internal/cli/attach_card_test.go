package cli

import (
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/check"
	"github.com/mcpoke/mcpoke/internal/proxy"
)

// The TUI's card of several host sessions gives each its own card under
// its label; one session's card names the others.
func TestCardTextGivesEachSessionItsCard(t *testing.T) {
	lines := func(s check.Status, fact string) []proxy.CardLine {
		return []proxy.CardLine{{Section: proxy.SectionClose, Title: "Cancels what is pending before it leaves", Status: s, Facts: []string{fact}}}
	}
	all := cardText(&proxy.CardReport{Transport: "http", Sessions: []proxy.SessionCard{
		{Session: "s1", Host: "good-host 1", Protocol: "2025-11-25", Requests: 2, Lines: lines(check.Pass, "nothing was pending")},
		{Session: "s2", Host: "silent-host 1", Protocol: "2025-06-18", Requests: 1, Lines: lines(check.Warn, "request s2:2 pending")},
	}})
	for _, want := range []string{
		"Report cards of 2 host sessions, each graded on its own\n",
		"── host session s1: good-host 1\n2025-11-25 over http, 2 requests from the host\n\npass · On close",
		"── host session s2: silent-host 1\n2025-06-18 over http, 1 request from the host\n\nwarn · On close",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("card text lacks %q:\n%s", want, all)
		}
	}
	one := cardText(&proxy.CardReport{Host: "silent-host 1", Protocol: "2025-06-18", Transport: "http", Requests: 1,
		Session: "s2", OtherSessions: []string{"s1"}, Lines: lines(check.Warn, "request s2:2 pending")})
	for _, want := range []string{"Report card of silent-host 1, host session s2\n", "other host sessions, each graded on its own: s1"} {
		if !strings.Contains(one, want) {
			t.Errorf("one session's card text lacks %q:\n%s", want, one)
		}
	}
}
