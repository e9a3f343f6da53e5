package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// badgeWords is a badge as the table can show it: its three wordings,
// widest first, and "!" when it warns.
func badgeWords(b badge) string {
	s := b.variant(0) + " | " + b.variant(1) + " | " + b.variant(2)
	if b.warn {
		s += " !"
	}
	return s
}

// Each note a row can carry about late, stray, duplicate or held
// traffic says word for word what came and how often, at every width:
// counts of one say no "×1", a late error is a late response, progress
// after a timeout says timeout, and only what is unusual warns.
func TestBadgesSayWhatCameAndHowOften(t *testing.T) {
	now := testEpoch.Add(time.Minute)
	late := func(l rows.Late) *rows.Row { return &rows.Row{State: session.Cancelled, Late: &l} }
	cases := []struct {
		name string
		row  *rows.Row
		want []string
	}{
		{"nothing unusual", &rows.Row{State: session.Completed}, nil},
		{"one stray frame", &rows.Row{Stray: &rows.Stray{Count: 1}}, []string{"stray | stray | stray !"}},
		{"two stray frames", &rows.Row{Stray: &rows.Stray{Count: 2}}, []string{"stray ×2 | stray ×2 | stray ×2 !"}},
		{"one late response", late(rows.Late{Responses: 1, FirstDelay: 1200 * time.Millisecond}),
			[]string{"late response ignored (+1.2s) | late response (+1.2s) | late (+1.2s) !"}},
		{"two late responses", late(rows.Late{Responses: 2, FirstDelay: 1200 * time.Millisecond}),
			[]string{"late response ignored (+1.2s) ×2 | late response (+1.2s) ×2 | late (+1.2s) ×2 !"}},
		{"a late response a proxy passed on", &rows.Row{State: session.Cancelled, Relayed: true, Late: &rows.Late{Responses: 1, FirstDelay: time.Second}},
			[]string{"late response passed on (+1.0s) | late response (+1.0s) | late (+1.0s) !"}},
		{"late progress, none timed", late(rows.Late{Progress: 3}),
			[]string{"progress after cancel ×3 | late progress ×3 | late prog ×3 !"}},
		{"one late progress, its last long ago", late(rows.Late{Progress: 1,
			Last: session.LateFrame{At: now.Add(-time.Minute), AfterCancel: 2 * time.Second}}),
			[]string{"progress after cancel ×1 (last +2.0s) | late progress ×1 | late prog ×1 !"}},
		{"late progress after a timeout", &rows.Row{State: session.TimedOut, Late: &rows.Late{Progress: 2}},
			[]string{"progress after timeout ×2 | late progress ×2 | late prog ×2 !"}},
		{"late progress still coming", late(rows.Late{Progress: 4,
			Last: session.LateFrame{At: now.Add(-time.Second), AfterCancel: 2500 * time.Millisecond}}),
			[]string{"still sending: 4 progress +2.5s | still sending: 4 prog +2.5s | sending ×4 +2.5s !"}},
		{"a stream closed by the cancel, nothing late",
			&rows.Row{State: session.Cancelled, Cancel: &rows.Cancel{Wire: session.CancelWire{ByStreamClose: true}}},
			[]string{"stream closed, late not observable | stream closed | closed"}},
		{"a stream closed by the cancel, a response late anyway",
			&rows.Row{State: session.Cancelled, Cancel: &rows.Cancel{Wire: session.CancelWire{ByStreamClose: true}}, Late: &rows.Late{Responses: 1}},
			[]string{"late response ignored (+0.0s) | late response (+0.0s) | late (+0.0s) !"}},
		{"a stream closed by the cancel, progress late anyway",
			&rows.Row{State: session.Cancelled, Cancel: &rows.Cancel{Wire: session.CancelWire{ByStreamClose: true}}, Late: &rows.Late{Progress: 1}},
			[]string{"progress after cancel ×1 | late progress ×1 | late prog ×1 !"}},
		{"lost", &rows.Row{State: session.Failed, Started: testEpoch, Info: &session.RequestInfo{LostAt: testEpoch.Add(2500 * time.Millisecond)}},
			[]string{"lost: stream broke at +2.5s | lost: stream broke +2.5s | lost +2.5s !"}},
		{"held by a proxy now", &rows.Row{State: session.Pending, Hold: &rows.Hold{At: now.Add(-4 * time.Second)}},
			[]string{"answer held by proxy 4.0s (enter passes it on) | answer held by proxy 4.0s | held 4.0s !"}},
		{"dropped by a proxy", &rows.Row{State: session.Pending, Hold: &rows.Hold{At: testEpoch, Ended: testEpoch.Add(3 * time.Second), Dropped: true}},
			[]string{"answer dropped by proxy after 3.0s held: the host never got it | answer dropped by proxy after 3.0s | dropped after 3.0s !"}},
		{"held by a proxy, then passed on", &rows.Row{State: session.Completed, Hold: &rows.Hold{At: testEpoch, Ended: testEpoch.Add(3 * time.Second)}},
			[]string{"answer held by proxy 3.0s, then passed on | held by proxy 3.0s | held 3.0s"}},
		{"one duplicate", &rows.Row{State: session.Completed, Duplicates: 1}, []string{"duplicate | duplicate | dup"}},
		{"two duplicates", &rows.Row{State: session.Completed, Duplicates: 2}, []string{"duplicate ×2 | duplicate ×2 | dup ×2"}},
	}
	for _, c := range cases {
		var got []string
		for _, b := range badges(c.row, now) {
			got = append(got, badgeWords(b))
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: badges\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// A level past the shortest wording gives the shortest; a badge without
// short wordings keeps its text at every level; a warning is painted as
// one.
func TestBadgeVariantAndPaint(t *testing.T) {
	b := badge{text: "full", short: []string{"short", "shortest"}, warn: true}
	for level, want := range []string{"full", "short", "shortest", "shortest"} {
		if got := b.variant(level); got != want {
			t.Errorf("variant(%d) = %q, want %q", level, got, want)
		}
	}
	if got := (badge{text: "only"}).variant(2); got != "only" {
		t.Errorf("variant(2) of a badge with no short wording = %q", got)
	}
	p := (&requestTable{c: &common{Styles: newStyles(true)}}).paint()
	if p.warn == p.badge {
		t.Fatal("warnings and badges are painted alike: the test cannot tell them apart")
	}
	if b.painter(p) != p.warn || (badge{text: "x"}).painter(p) != p.badge {
		t.Error("a warning is not painted as a warning, or a plain badge is")
	}
}

// The progress bar rounds to the nearest cell, stays within its width
// whatever the numbers, and without a positive total shows the count
// alone.
func TestProgressViewBar(t *testing.T) {
	total := func(f float64) *float64 { return &f }
	cases := []struct {
		p    session.Progress
		want string
	}{
		{session.Progress{Progress: 4}, "» 4"},
		{session.Progress{Progress: 4, Total: total(0)}, "» 4"},
		{session.Progress{Progress: 4, Total: total(-2)}, "» 4"},
		{session.Progress{Progress: 4, Total: total(10)}, "████░░░░░░ 4/10"},
		{session.Progress{Progress: 3.5, Total: total(10)}, "████░░░░░░ 3.5/10"},
		{session.Progress{Progress: 3.4, Total: total(10)}, "███░░░░░░░ 3.4/10"},
		{session.Progress{Progress: 12, Total: total(10)}, "██████████ 12/10"},
		{session.Progress{Progress: -1, Total: total(10)}, "░░░░░░░░░░ -1/10"},
	}
	for _, c := range cases {
		if got := progressView(nil, &c.p, 10, true); got != c.want {
			t.Errorf("progress %v of %s: %q, want %q", c.p.Progress, totalText(c.p.Total), got, c.want)
		}
	}
}

func totalText(t *float64) string {
	if t == nil {
		return "none"
	}
	return fmt.Sprint(*t)
}
