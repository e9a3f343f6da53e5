package proxy

import (
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// recordQueue is how many records may wait for the observers. When they
// fall behind the relay waits for them rather than memory growing: at
// most headKeep+tailKeep bytes each, a bounded amount.
const recordQueue = 4096

// Recorder hands the records of relayed traffic to its observers
// (transcript, request table, attach history) on one goroutine of its
// own, in the order the relay made them, so that observers never run on
// the relay's goroutines.
type Recorder struct {
	in   chan wire.Record
	done chan struct{}

	// sendMu orders the two directions' records into one queue and
	// guards closed; obsMu guards observers. Two locks, so that a relay
	// waiting on a full queue never holds up the observers draining it.
	sendMu    sync.Mutex
	closed    bool
	obsMu     sync.Mutex
	observers []func(wire.Record)
	idle      []func()
}

// NewRecorder starts a recorder; Close ends it.
func NewRecorder() *Recorder {
	r := &Recorder{in: make(chan wire.Record, recordQueue), done: make(chan struct{})}
	go r.run()
	return r
}

// Observe adds an observer. Records made before it was added are not
// replayed to it. Call it before the relay starts to see everything.
func (r *Recorder) Observe(f func(wire.Record)) {
	r.obsMu.Lock()
	r.observers = append(r.observers, f)
	r.obsMu.Unlock()
}

// OnIdle adds f, run each time the observers have caught up with the
// queue: the moment to flush a buffered transcript, so that a file that
// is followed stays current while a flood is written in large blocks.
func (r *Recorder) OnIdle(f func()) {
	r.obsMu.Lock()
	r.idle = append(r.idle, f)
	r.obsMu.Unlock()
}

// record queues one record; the relay's splitters call it. The two
// directions record from two goroutines: the mutex makes their records
// one sequence in the order they were made.
func (r *Recorder) record(rec wire.Record) {
	r.sendMu.Lock()
	if !r.closed {
		r.in <- rec
	}
	r.sendMu.Unlock()
}

// Event records a word of the proxy's own about the relay (a
// wire.KindRelay line), such as what it relays to.
func (r *Recorder) Event(at time.Time, text string) {
	r.record(wire.Record{At: at, Dir: wire.In, Kind: wire.KindRelay, Data: []byte(text)})
}

// Close hands the records still queued to the observers and returns when
// they have all seen them. Later records are dropped.
func (r *Recorder) Close() {
	r.sendMu.Lock()
	if !r.closed {
		r.closed = true
		close(r.in)
	}
	r.sendMu.Unlock()
	<-r.done
}

func (r *Recorder) run() {
	defer close(r.done)
	var (
		obs  []func(wire.Record)
		idle []func()
	)
	for rec := range r.in {
		r.obsMu.Lock()
		obs = append(obs[:0], r.observers...)
		idle = append(idle[:0], r.idle...)
		r.obsMu.Unlock()
		for _, f := range obs {
			f(rec)
		}
		if len(r.in) == 0 {
			for _, f := range idle {
				f()
			}
		}
	}
}
