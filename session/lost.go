package session

import (
	"strconv"
	"time"
)

// lostText says a request was lost, and when, counted from its start.
func lostText(after time.Duration) string {
	return "lost: stream broke at +" + shortDuration(after) + " (no resumption in protocol " + Era2026Version + "; re-issue it under a new id)"
}

// shortDuration writes d as people read a stopwatch: 1.2s, 350ms.
func shortDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}
