package diagram

// The words both renderers put at a span's edges.

// spanOpenText is what a span says where it opens.
func spanOpenText(s *Span) string { return s.Label }

// spanCloseText is what a span says where it closes, with its time
// drawn beside: "" for a span still running, or one that just ends.
func spanCloseText(s *Span) string {
	if s.Open {
		return ""
	}
	return s.End
}

// saysNothingMore reports whether the time after the cancel closing at
// st needs words: nothing came in it, and no settle window in it says
// how it went.
func saysNothingMore(l *Life, st Step) bool {
	return st.Span.Kind == SpanAfter && st.Inside == 0 && l.Span(SpanSettle) == nil
}

// nothingMore is said in the time after the cancel when nothing came
// in it.
func nothingMore(l Life) string {
	if l.Live {
		return "nothing more yet, now " + offset(l.End)
	}
	return "nothing more, up to " + offset(l.End)
}

// spanRunning is what a span still running says at the drawing's end,
// beside the time it is now.
func spanRunning(s *Span) string {
	if s.Kind == SpanTimeout {
		return "… waiting, now"
	}
	return "… watching, now"
}
