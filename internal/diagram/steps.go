package diagram

import "sort"

// StepKind says what a Step draws.
type StepKind uint8

const (
	StepArrow StepKind = iota // Arrow
	StepOpen                  // Span opens
	StepClose                 // Span closes
)

// Step is one thing to draw, in order: both renderers walk the same
// steps, so spans open and close around the same arrows in each.
type Step struct {
	Kind  StepKind
	Arrow *Arrow
	Span  *Span
	// Inside counts the arrows a span held, on its StepClose.
	Inside int
}

// Steps lays l out from top to bottom: its arrows in order, each span
// opened before the first arrow in it and closed after the last, nested
// properly (a span that opens inside another closes first). The arrow
// that starts a span (the cancel that starts the time after it, the
// request or progress that starts a timeout's wait) stays before it; the
// cancel a timeout sends comes after the timeout's span.
func (l *Life) Steps() []Step {
	n := len(l.Arrows)
	type bound struct {
		span        *Span
		open, close int // the arrow slots the span opens and closes before
	}
	bounds := make([]bound, len(l.Spans))
	for i := range l.Spans {
		s := &l.Spans[i]
		open := n
		for j := range l.Arrows {
			if inOrAfter(s, &l.Arrows[j]) {
				open = j
				break
			}
		}
		closeAt := n
		for j := open; j < n; j++ {
			if pastEnd(s, &l.Arrows[j]) {
				closeAt = j
				break
			}
		}
		bounds[i] = bound{s, open, closeAt}
	}
	// Outer spans first where several open at one slot.
	sort.SliceStable(bounds, func(i, j int) bool {
		if bounds[i].open != bounds[j].open {
			return bounds[i].open < bounds[j].open
		}
		return bounds[i].close > bounds[j].close
	})
	var out []Step
	var stack []bound
	inside := map[*Span]int{}
	closeDue := func(slot int) {
		// Close every span due by slot; one under a later-closing span
		// closes that one too, so nesting holds whatever the times.
		for {
			due := -1
			for i, b := range stack {
				if b.close <= slot {
					due = i
					break
				}
			}
			if due < 0 {
				return
			}
			for len(stack) > due {
				top := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				out = append(out, Step{Kind: StepClose, Span: top.span, Inside: inside[top.span]})
			}
		}
	}
	next := 0
	for slot := 0; slot <= n; slot++ {
		closeDue(slot)
		for next < len(bounds) && bounds[next].open == slot {
			stack = append(stack, bounds[next])
			out = append(out, Step{Kind: StepOpen, Span: bounds[next].span})
			next++
		}
		closeDue(slot)
		if slot < n {
			for _, b := range stack {
				inside[b.span]++
			}
			out = append(out, Step{Kind: StepArrow, Arrow: &l.Arrows[slot]})
		}
	}
	closeDue(n + 1)
	return out
}

// inOrAfter reports whether a comes after s opens: later than its start,
// or at its start without being what started it.
func inOrAfter(s *Span, a *Arrow) bool {
	if a.At != s.From {
		return a.At > s.From
	}
	switch s.Kind {
	case SpanTimeout:
		return false // the request or progress that (re)started the timer
	}
	return !a.Kind.IsCancel() // the cancel that starts the time after it
}

// pastEnd reports whether a comes after s closes.
func pastEnd(s *Span, a *Arrow) bool {
	if a.At != s.To {
		return a.At > s.To
	}
	// The cancel a timeout sends comes after the timeout.
	return s.Kind == SpanTimeout && a.Kind.IsCancel()
}
