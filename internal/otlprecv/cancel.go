package otlprecv

import "time"

// AtCancel is how near the cancel a span's end counts as at it: the
// server and mcpoke are two processes with two readings of the clock.
const AtCancel = 5 * time.Millisecond

// Ending is when a server span ended against the cancel of its request.
type Ending int

// The endings of a span against the cancel.
const (
	EndedBefore Ending = iota // the work was done before the cancel went out
	EndedAt                   // within AtCancel of it: the work stopped at the cancel
	EndedAfter                // the work went on after the cancel
)

// EndingOf places a span's end against the time the cancel was sent.
func EndingOf(end, cancel time.Time) Ending {
	switch d := end.Sub(cancel); {
	case d > -AtCancel && d < AtCancel:
		return EndedAt
	case d < 0:
		return EndedBefore
	}
	return EndedAfter
}
