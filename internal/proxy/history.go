package proxy

import (
	"bytes"
	"sync"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// historyLines is how many transcript lines a proxy keeps for a client
// that attaches later; lines of requests still open are kept beyond it.
const historyLines = 10_000

// clientQueue is how many lines an attached client may fall behind
// before it is dropped: a slow or stuck client never holds up the relay.
const clientQueue = 65_536

// History keeps the transcript lines of a proxy's traffic, bounded, and
// hands each new line to the attached clients. Feed it the lines of a
// transcript.Writer (one Write per line) and the records (Note) that say
// which lines are requests.
type History struct {
	mu     sync.Mutex
	ring   [][]byte // the last historyLines lines, oldest first from head
	keys   []rowKey // the request each ring line opened, if any
	head   int
	pinned []pinnedLine // request lines evicted while their request was open
	// prunePinned is the length of pinned at which the lines of requests
	// that ended since are dropped.
	prunePinned int
	table       *Table
	clients     map[chan []byte]struct{}
	pending     rowKey // the request of the line being written, set by Note
	hasKey      bool
}

// NewHistory keeps lines, asking table which requests are still open.
func NewHistory(table *Table) *History {
	return &History{table: table, clients: map[chan []byte]struct{}{}}
}

// Note is a Recorder observer to run just before the transcript writer:
// it marks the next line as the one of a request, if it is one.
func (h *History) Note(r wire.Record) { h.NoteParsed(r, Parse(r)) }

// NoteParsed is Note with the record's frame read.
func (h *History) NoteParsed(r wire.Record, p Parsed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hasKey = false
	if r.Kind != wire.KindFrame {
		return
	}
	if ms := p.ms; len(ms) == 1 && ms[0].Method != "" && len(ms[0].ID) > 0 {
		h.pending, h.hasKey = rowKey{r.Dir, r.Session, compact(ms[0].ID)}, true
	}
}

// Write implements io.Writer for one transcript line.
func (h *History) Write(line []byte) (int, error) {
	line = bytes.Clone(line)
	h.mu.Lock()
	defer h.mu.Unlock()
	key := rowKey{id: ""}
	if h.hasKey {
		key = h.pending
		h.hasKey = false
	}
	if len(h.ring) < historyLines {
		h.ring = append(h.ring, line)
		h.keys = append(h.keys, key)
	} else {
		if old := h.keys[h.head]; old.id != "" && h.table.open(old) {
			h.pin(pinnedLine{h.ring[h.head], old})
		}
		h.ring[h.head], h.keys[h.head] = line, key
		h.head = (h.head + 1) % historyLines
	}
	for c := range h.clients {
		select {
		case c <- line:
		default:
			// Too far behind: drop it rather than wait or grow.
			delete(h.clients, c)
			close(c)
		}
	}
	return len(line), nil
}

// Follow returns the history so far, then every new line, until stop is
// called or the client falls clientQueue lines behind (the channel is
// then closed).
func (h *History) Follow() (past [][]byte, next <-chan []byte, stop func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.pinned {
		past = append(past, p.line)
	}
	past = append(past, h.ring[h.head:]...)
	past = append(past, h.ring[:h.head]...)
	c := make(chan []byte, clientQueue)
	h.clients[c] = struct{}{}
	return past, c, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.clients[c]; ok {
			delete(h.clients, c)
			close(c)
		}
	}
}

type pinnedLine struct {
	line []byte
	key  rowKey
}

// pin keeps an open request's line; now and then it drops the lines of
// requests that ended since, so that pinned holds about the open ones.
func (h *History) pin(p pinnedLine) {
	h.pinned = append(h.pinned, p)
	if len(h.pinned) < h.prunePinned {
		return
	}
	kept := h.pinned[:0]
	for _, p := range h.pinned {
		if h.table.open(p.key) {
			kept = append(kept, p)
		}
	}
	clear(h.pinned[len(kept):])
	h.pinned = kept
	h.prunePinned = max(64, 2*len(kept))
}

// Close ends every client's stream.
func (h *History) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		delete(h.clients, c)
		close(c)
	}
}

// open reports whether the request is still pending.
func (t *Table) open(k rowKey) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	row := t.rows[k]
	return row != nil && row.State == Pending
}
