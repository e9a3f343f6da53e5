package diagram

import (
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// ItemOf is the transcript item of a tap record, as the transcript
// writer would put it (same times, to the microsecond), without the
// round trip through NDJSON: the TUI draws from its wire log as it
// grows. line numbers the item. ok is false for what a diagram never
// draws (stderr, noise, oversize lines).
func ItemOf(start time.Time, r wire.Record, line int) (Item, bool) {
	it := Item{Line: line, T: float64(r.At.Sub(start).Microseconds()) / 1000, Session: r.Session}
	switch {
	case r.Dir == wire.Out:
		it.Dir, it.Msg = "out", r.Data
	case r.Kind == wire.KindFrame:
		it.Dir, it.Msg = "in", r.Data
	case r.Kind == wire.KindHTTP:
		it.Dir, it.HTTP = "http", string(r.Data)
	default:
		return Item{}, false
	}
	return it, true
}
