package proxy

import (
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// recordQueue is how many records (or chunks of a stream) may wait for
// the observers, and queueBytes how many bytes of chunks. When they fall
// behind the relay waits for them rather than memory growing: a record
// holds at most headKeep+tailKeep bytes, the chunks queueBytes.
const (
	recordQueue = 4096
	queueBytes  = 4 << 20
)

// gatherDelay is how long the recorder waits, woken by a record after a
// quiet spell, for the records that follow it before it hands them on.
// Woken once per record, its goroutine would take a second CPU away from
// the relay at every line (measured: a third of a round trip through the
// proxy at concurrency 1); a millisecond's wait makes it one wake for a
// whole exchange. Under a flood the batches are large and it never waits.
const gatherDelay = time.Millisecond

// smallBatch is the size of batch after which the recorder waits
// gatherDelay again: below it, traffic is light enough to gather.
const smallBatch = 64

// Recorder hands the records of relayed traffic to its observers
// (transcript, request table, attach history) on one goroutine of its
// own, in the order the relay made them, so that observers never run on
// the relay's goroutines.
type Recorder struct {
	// mu orders the two directions' records into one queue and guards
	// queue, chunks and closed; space is signalled when the queue was
	// taken.
	mu     sync.Mutex
	space  *sync.Cond
	queue  []queued
	chunks []byte // the bytes of the queue's chunks, one after another
	closed bool
	// latest is the latest time queued: a goroutine that read the clock
	// and then waited for mu queues its record after one stamped later,
	// so times are kept from going back in the records' order.
	latest time.Time
	wake   chan struct{} // capacity 1: the queue has something, or closed
	done   chan struct{}

	// obsMu guards observers: a relay waiting for room in the queue never
	// holds up the observers draining it.
	obsMu     sync.Mutex
	observers []observer
	idle      []func()

	obs  []observer // the observers of the batch being handed on (run's)
	msgs []message  // the messages of the record being handed on (run's)
}

// queued is one item of the queue: a record, or a chunk of bytes of a
// stream that the recorder cuts into lines (records) itself, off the
// relay's goroutine.
type queued struct {
	rec wire.Record
	// lines, if set, is the stream rec.At's chunk, chunks[off:off+n],
	// belongs to; with end, the stream ended.
	lines  *lineSplitter
	off, n int
	end    bool
}

// observer is one of a recorder's observers: plain, or one that gets
// the record's frame read (Parsed), which is read once for them all.
type observer struct {
	plain  func(wire.Record)
	parsed func(wire.Record, Parsed)
}

// NewRecorder starts a recorder; Close ends it.
func NewRecorder() *Recorder {
	r := &Recorder{wake: make(chan struct{}, 1), done: make(chan struct{})}
	r.space = sync.NewCond(&r.mu)
	go r.run()
	return r
}

// Observe adds an observer. Records made before it was added are not
// replayed to it. Call it before the relay starts to see everything.
func (r *Recorder) Observe(f func(wire.Record)) {
	r.obsMu.Lock()
	r.observers = append(r.observers, observer{plain: f})
	r.obsMu.Unlock()
}

// ObserveParsed adds an observer that gets each record with its frame
// read; the frame is read once for all such observers. Observers of
// both kinds are called in the order they were added.
func (r *Recorder) ObserveParsed(f func(wire.Record, Parsed)) {
	r.obsMu.Lock()
	r.observers = append(r.observers, observer{parsed: f})
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
// one sequence in the order they were made. A full queue makes the
// relay wait for the observers rather than memory grow.
func (r *Recorder) record(rec wire.Record) { r.put(queued{rec: rec}, nil) }

// Lines returns a stream whose chunks (Chunk) the recorder cuts into
// line records on its own goroutine: the relay only copies the bytes.
func (r *Recorder) lines(dir wire.Direction, stderr bool) *lineSplitter {
	l := &lineSplitter{dir: dir, stderr: stderr, emit: r.deliver}
	l.now = func() time.Time { return l.at }
	return l
}

// chunk queues the bytes of one read of stream l (from lines), which
// arrived at at; p may be reused once it returns.
func (r *Recorder) chunk(l *lineSplitter, at time.Time, p []byte) {
	r.put(queued{rec: wire.Record{At: at}, lines: l}, p)
}

// endLines queues the end of stream l: a last line without a newline is
// recorded.
func (r *Recorder) endLines(l *lineSplitter, at time.Time) {
	r.put(queued{rec: wire.Record{At: at}, lines: l, end: true}, nil)
}

func (r *Recorder) put(e queued, p []byte) {
	r.mu.Lock()
	for !r.closed && (len(r.queue) >= recordQueue || len(r.chunks) > 0 && len(r.chunks)+len(p) > queueBytes) {
		r.space.Wait()
	}
	if r.closed {
		r.mu.Unlock()
		return
	}
	switch at := e.rec.At; {
	case at.IsZero():
	case at.Before(r.latest):
		e.rec.At = r.latest
	default:
		r.latest = at
	}
	if p != nil {
		e.off, e.n = len(r.chunks), len(p)
		r.chunks = append(r.chunks, p...)
	}
	r.queue = append(r.queue, e)
	first := len(r.queue) == 1
	r.mu.Unlock()
	if first {
		r.signal()
	}
}

func (r *Recorder) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Event records a word of the proxy's own about the relay (a
// wire.KindRelay line), such as what it relays to.
func (r *Recorder) Event(at time.Time, text string) {
	r.record(wire.Record{At: at, Dir: wire.In, Kind: wire.KindRelay, Data: []byte(text)})
}

// Close hands the records still queued to the observers and returns when
// they have all seen them. Later records are dropped.
func (r *Recorder) Close() {
	r.mu.Lock()
	r.closed = true
	r.space.Broadcast()
	r.mu.Unlock()
	r.signal()
	<-r.done
}

func (r *Recorder) run() {
	defer close(r.done)
	var (
		idle   []func()
		batch  []queued
		chunks []byte
		last   = smallBatch // the size of the last batch
	)
	for {
		<-r.wake
		if last < smallBatch {
			r.mu.Lock()
			closed := r.closed
			r.mu.Unlock()
			if !closed {
				time.Sleep(gatherDelay)
			}
		}
		for {
			r.mu.Lock()
			batch, r.queue = r.queue, batch[:0]
			chunks, r.chunks = r.chunks, chunks[:0]
			closed := r.closed
			r.space.Broadcast()
			r.mu.Unlock()
			if len(batch) == 0 {
				if closed {
					return
				}
				break
			}
			last = len(batch)
			r.obsMu.Lock()
			r.obs = append(r.obs[:0], r.observers...)
			idle = append(idle[:0], r.idle...)
			r.obsMu.Unlock()
			for _, e := range batch {
				switch {
				case e.lines == nil:
					r.deliver(e.rec)
				case e.end:
					e.lines.at = e.rec.At
					e.lines.flush()
				default:
					e.lines.at = e.rec.At
					e.lines.feed(chunks[e.off : e.off+e.n])
				}
			}
			clear(batch) // the records' data goes with the observers
			if cap(chunks) > queueBytes {
				chunks = nil // one huge chunk does not pin its buffer
			}
		}
		for _, f := range idle {
			f()
		}
	}
}

// deliver hands one record to the observers; run's goroutine calls it.
func (r *Recorder) deliver(rec wire.Record) {
	var p Parsed
	read := false
	for _, o := range r.obs {
		switch {
		case o.plain != nil:
			o.plain(rec)
		default:
			if !read {
				p, read = parseInto(rec, r.msgs), true
				if cap(p.ms) <= 64 {
					r.msgs = p.ms[:0] // a huge batch does not pin its buffer
				}
			}
			o.parsed(rec, p)
		}
	}
}
