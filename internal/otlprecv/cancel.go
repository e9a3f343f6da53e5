package otlprecv

import "time"

// How near the cancel a span's end counts as at it. mcpoke reads the
// cancel's time once its write returned, and the server, another process,
// may read the cancel and end its span before that: on a loaded machine
// tens of milliseconds before (-7.7 ms under -race, -5.7 ms in CI). After
// the cancel, the server had it: 5 ms is its reaction.
const (
	AtCancel       = 5 * time.Millisecond
	AtCancelBefore = 50 * time.Millisecond
)

// Ending is when a server span ended against the cancel of its request.
type Ending int

// The endings of a span against the cancel.
const (
	EndedBefore Ending = iota // the work was done before the cancel went out
	EndedAt                   // near it: the work stopped at the cancel
	EndedAfter                // the work went on after the cancel
)

// EndingOf places a span's end against the time the cancel was sent.
func EndingOf(end, cancel time.Time) Ending {
	switch d := end.Sub(cancel); {
	case d > -AtCancelBefore && d < AtCancel:
		return EndedAt
	case d < 0:
		return EndedBefore
	}
	return EndedAfter
}
