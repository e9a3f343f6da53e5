package check

import (
	"strings"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// maxWireFacts bounds the HTTP facts one recording keeps.
const maxWireFacts = 500

// wireFacts records what the HTTP transport says it did (a POST's status,
// a stream's end, a reconnection with Last-Event-ID) while a check asks
// for it: evidence in the transport's own words, quoted, never graded.
type wireFacts struct {
	mu      sync.Mutex
	on      bool
	records []wire.Record
}

func (f *wireFacts) observe(rec wire.Record) {
	// An event's id note is never quoted (see aboutRequest), and there is
	// one per SSE event: a call that reports progress a thousand times
	// before its cancel filled the recording with them, and the cancel's
	// 202 that came next was not kept.
	if rec.Kind != wire.KindHTTP || isEventNote(string(rec.Data)) {
		return
	}
	f.mu.Lock()
	if f.on && len(f.records) < maxWireFacts {
		f.records = append(f.records, rec)
	}
	f.mu.Unlock()
}

// start begins a recording, dropping the last one.
func (f *wireFacts) start() {
	f.mu.Lock()
	f.on, f.records = true, nil
	f.mu.Unlock()
}

// stop ends the recording and returns it.
func (f *wireFacts) stop() []wire.Record {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.on = false
	return f.records
}

// aboutRequest keeps the facts about request id from its start (its
// POST, its stream, the GETs that resumed it) and, when it was cancelled
// (cancelled, when it was decided, not zero), the POSTs of
// notifications/cancelled from then on, leaving out
// the one-per-event notes of event ids.
func aboutRequest(records []wire.Record, id string, started, cancelled time.Time) []wire.Record {
	var out []wire.Record
	// The session's clock and the wire's may disagree by a little: a
	// cancel POST is taken from a moment before the decision, never as
	// far back as the call's start, where an earlier call's 202 may land.
	slack := min(cancelSlack, cancelled.Sub(started)/2)
	for _, r := range records {
		text := string(r.Data)
		mine := strings.Contains(text, "id "+id+" ") || strings.Contains(text, "id "+id+":") ||
			strings.HasPrefix(text, "request "+id+":") || strings.Contains(text, "request "+id+" ")
		// The cancel's POST names no request: it is this call's from the
		// moment its cancel was decided (its answer can be read, and
		// stamped, before the write of the cancel is, on a busy machine),
		// never an earlier call's whose 202 came late.
		cancel := !cancelled.IsZero() && !r.At.Before(cancelled.Add(-slack)) && strings.HasPrefix(text, "POST notifications/cancelled")
		if !r.At.Before(started) && (cancel || (mine && !isEventNote(text))) {
			out = append(out, r)
		}
	}
	return out
}

// cancelSlack bounds how long before a call's cancel was decided its
// cancel POST is looked for.
const cancelSlack = 50 * time.Millisecond

// isEventNote says whether a fact only notes an SSE event's id.
func isEventNote(text string) bool {
	_, rest, ok := strings.Cut(text, ": ")
	return ok && strings.HasPrefix(rest, "event id ")
}

// maxQuoted bounds the wire facts one part of a check quotes.
const maxQuoted = 12

// quoteWire adds the facts to e, each with how far into the call (which
// started at zero) it came.
func quoteWire(e *Evidence, records []wire.Record, zero time.Time) {
	for i, r := range records {
		if i == maxQuoted {
			e.fact("wire: %d more facts in the transcript", len(records)-i)
			return
		}
		e.fact("wire, %s into the call: %s", human(r.At.Sub(zero)), r.Data)
	}
}
