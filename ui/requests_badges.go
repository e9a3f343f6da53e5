package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// badge is a short note on a row about unusual traffic, with shorter
// wordings for narrow screens.
type badge struct {
	text  string
	short []string // shorter, then shortest
	warn  bool
}

// variant is the badge's wording at level 0 (full) to 2 (shortest).
func (b badge) variant(level int) string {
	if level == 0 || len(b.short) == 0 {
		return b.text
	}
	return b.short[min(level, len(b.short))-1]
}

func (b badge) painter(p *rowPaints) painter {
	if b.warn {
		return p.warn
	}
	return p.badge
}

// badges lists what is unusual about a row: late, stray and duplicate
// traffic.
func badges(r *rows.Row, now time.Time) []badge {
	var out []badge
	if r.Incoming {
		out = append(out, askBadges(r)...)
	}
	out = append(out, roundBadges(r)...)
	if r.IsStray() {
		s := "stray"
		if r.StrayOrNone().Count > 1 {
			s += " ×" + strconv.Itoa(r.StrayOrNone().Count)
		}
		out = append(out, badge{text: s, warn: true})
	}
	if r.LateOrNone().Responses > 0 {
		delay := "(+" + formatDuration(r.LateOrNone().FirstDelay) + ")"
		times := ""
		if r.LateOrNone().Responses > 1 {
			times = " ×" + strconv.Itoa(r.LateOrNone().Responses)
		}
		what := "late response ignored "
		if r.Relayed {
			what = "late response passed on "
		}
		out = append(out, badge{text: what + delay + times,
			short: []string{"late response " + delay + times, "late " + delay + times}, warn: true})
	}
	switch {
	case r.StillSending(now):
		// Live: the count and the delay of the newest frame keep rising.
		at := " +" + formatDuration(r.LateOrNone().Last.AfterCancel)
		n := strconv.Itoa(r.LateOrNone().Progress)
		out = append(out, badge{text: "still sending: " + n + " progress" + at,
			short: []string{"still sending: " + n + " prog" + at, "sending ×" + n + at}, warn: true})
	case r.LateOrNone().Progress > 0:
		what := "progress after cancel"
		if r.State == session.TimedOut {
			what = "progress after timeout"
		}
		n := " ×" + strconv.Itoa(r.LateOrNone().Progress)
		last := ""
		if !r.LateOrNone().Last.At.IsZero() {
			last = " (last +" + formatDuration(r.LateOrNone().Last.AfterCancel) + ")"
		}
		out = append(out, badge{text: what + n + last, short: []string{"late progress" + n, "late prog" + n}, warn: true})
	}
	if b, ok := listenBadge(r); ok {
		out = append(out, b)
	}
	if r.CancelOrNone().Wire.ByStreamClose && r.LateOrNone().Responses == 0 && r.LateOrNone().Progress == 0 {
		// Protocol 2026-07-28 over HTTP: nothing more can arrive, so no
		// late badge means nothing; say so rather than show none.
		out = append(out, badge{text: "stream closed, late not observable",
			short: []string{"stream closed", "closed"}})
	}
	if r.Lost() {
		at := "+" + formatDuration(r.Info.LostAt.Sub(r.Started))
		out = append(out, badge{text: "lost: stream broke at " + at,
			short: []string{"lost: stream broke " + at, "lost " + at}, warn: true})
	}
	if b, ok := lateStatusBadge(r); ok {
		out = append(out, b)
	}
	if b, ok := holdBadge(r, now); ok {
		out = append(out, b)
	}
	if r.Duplicates > 0 {
		s := "duplicate"
		if r.Duplicates > 1 {
			s += " ×" + strconv.Itoa(r.Duplicates)
		}
		out = append(out, badge{text: s, short: []string{s, "dup" + strings.TrimPrefix(s, "duplicate")}})
	}
	return out
}

// holdBadge says what a proxy did with the row's answer (mcpoke attach):
// holds it (for how long so far), held it then passed it on, or
// dropped it.
func holdBadge(r *rows.Row, now time.Time) (badge, bool) {
	h := r.Hold
	switch {
	case h == nil:
		return badge{}, false
	case r.Holding():
		age := formatDuration(now.Sub(h.At))
		return badge{text: "answer held by proxy " + age + " (enter passes it on)",
			short: []string{"answer held by proxy " + age, "held " + age}, warn: true}, true
	case h.Dropped:
		took := formatDuration(h.Ended.Sub(h.At))
		return badge{text: "answer dropped by proxy after " + took + " held: the host never got it",
			short: []string{"answer dropped by proxy after " + took, "dropped after " + took}, warn: true}, true
	}
	took := formatDuration(h.Ended.Sub(h.At))
	return badge{text: "answer held by proxy " + took + ", then passed on",
		short: []string{"held by proxy " + took, "held " + took}}, true
}

// progressView is a small bar with its numbers: "████░░░░ 4/10".
func progressView(pt *rowPaints, p *session.Progress, barWidth int, plain bool) string {
	num := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total == nil || *p.Total <= 0 {
		return "» " + num
	}
	total := *p.Total
	frac := min(max(p.Progress/total, 0), 1)
	full := int(frac*float64(barWidth) + 0.5)
	bar, rest := strings.Repeat("█", full), strings.Repeat("░", barWidth-full)
	if !plain {
		bar, rest = pt.full.Render(bar), pt.empty.Render(rest)
	}
	return bar + rest + " " + num + "/" + strconv.FormatFloat(total, 'f', -1, 64)
}
