package rows

import (
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// Per-batch bounds: a flooding server costs the UI at most this much per
// frame, whatever its rate. What is dropped is still counted.
const (
	batchRecentProgress = 16   // progress updates kept per request
	batchLateFrames     = 64   // late frames kept per request
	batchStrays         = 100  // stray arrivals kept
	batchStderr         = 500  // stderr lines kept, newest
	batchWire           = 2000 // wire records kept, newest
	batchNotifications  = 500  // notifications kept, oldest
)

// defaultFrameInterval bounds how often a Feed delivers: about 30 batches
// a second is smooth to watch and leaves the event loop free for keys.
const defaultFrameInterval = 33 * time.Millisecond

// Batch is what a Feed delivers: the session's events since the last
// batch, in order, with the floods folded. Items holds session.Event
// values, except that runs of ProgressUpdated become *ProgressRun and
// runs of late progress become *LateRun.
type Batch struct {
	Items         []any
	Duplicates    map[uint64]int // by Seq
	Stderr        []session.StderrLine
	StderrDropped int
	Noise         int
	StrayDropped  int
	// Violations counts the protocol violations; LastViolation is the
	// newest, for the status line.
	Violations    int
	LastViolation session.Violation
	Wire          []wire.Record
	WireDropped   int
	// NotificationsDropped counts the notifications past
	// batchNotifications, not kept.
	NotificationsDropped int
	// Events counts the raw events folded into this batch.
	Events int
	// Ended: the session closed and this is the last batch.
	Ended bool

	progressAt    map[uint64]int
	lateAt        map[uint64]int
	strays        int
	notifications int
}

// ProgressRun is every ProgressUpdated of one request in a batch.
type ProgressRun struct {
	Ref    session.Ref
	Latest session.Progress
	Count  int
	// Recent holds up to batchRecentProgress of the newest, oldest first.
	Recent []session.Progress
}

// LateRun is the late progress of one request in a batch.
type LateRun struct {
	Ref   session.Ref
	Count int
	// Frames holds the first batchLateFrames of them; Last is the newest,
	// for the row's live "still sending".
	Frames []session.LateFrame
	Last   session.LateFrame
}

func newBatch() *Batch {
	return &Batch{progressAt: map[uint64]int{}, lateAt: map[uint64]int{}}
}

func (b *Batch) empty() bool {
	return b.Events == 0 && len(b.Wire) == 0 && b.WireDropped == 0
}

// Feed drains a session's events and a tap's records without ever
// blocking them, folds floods together, and hands the UI one Batch per
// frame interval at most. Memory is bounded by the per-batch limits.
type Feed struct {
	interval time.Duration

	mu       sync.Mutex
	cur      *Batch
	ended    bool
	lastSent time.Time

	nextMu sync.Mutex    // one Next at a time
	notify chan struct{} // has something; capacity 1
	stop   chan struct{}
	once   sync.Once
}

// RecordSource hands every frame in and out to its observers, as a
// connect.Conn does: the wire log's source. The UI reaches the wire only
// through it and the session.
type RecordSource interface {
	Observe(func(wire.Record))
}

// SubscribeFeed subscribes to s (and observes records, if not nil) and starts
// draining. Call it before the first request to see everything.
func SubscribeFeed(s *session.Session, records RecordSource, interval time.Duration) *Feed {
	sub := s.Subscribe()
	f := NewFeed(sub.C, interval)
	if records != nil {
		records.Observe(f.AddRecord)
	}
	go func() {
		<-f.stop
		sub.Close()
	}()
	return f
}

// NewFeed drains events until the channel closes.
func NewFeed(events <-chan session.Event, interval time.Duration) *Feed {
	f := newFeed(interval)
	go func() {
		for e := range events {
			f.add(e)
		}
		f.end()
	}()
	return f
}

// NewItemFeed drains items until the channel closes: session events,
// and items of the rows' own kept in order with them (HoldChanged, from
// an attached proxy).
func NewItemFeed(items <-chan any, interval time.Duration) *Feed {
	f := newFeed(interval)
	go func() {
		for item := range items {
			if e, ok := item.(session.Event); ok {
				f.add(e)
				continue
			}
			f.mu.Lock()
			f.cur.Events++
			f.cur.Items = append(f.cur.Items, item)
			f.mu.Unlock()
			f.signal()
		}
		f.end()
	}()
	return f
}

func newFeed(interval time.Duration) *Feed {
	if interval <= 0 {
		interval = defaultFrameInterval
	}
	return &Feed{
		interval: interval,
		cur:      newBatch(),
		notify:   make(chan struct{}, 1),
		stop:     make(chan struct{}),
	}
}

// end marks the source drained: the next batch is the last.
func (f *Feed) end() {
	f.mu.Lock()
	f.ended = true
	f.mu.Unlock()
	f.signal()
}

// Stop ends delivery: Next returns nil from now on.
func (f *Feed) Stop() { f.once.Do(func() { close(f.stop) }) }

func (f *Feed) signal() {
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

// add folds one event into the current batch.
func (f *Feed) add(e session.Event) {
	f.mu.Lock()
	f.cur.fold(e)
	f.mu.Unlock()
	f.signal()
}

// fold adds one event to the batch: floods fold into runs and counts,
// within the per-batch bounds; anything else is kept as it came.
func (b *Batch) fold(e session.Event) {
	b.Events++
	switch e := e.(type) {
	case session.ProgressUpdated:
		b.foldProgress(e)
	case session.LateArrived:
		b.foldLate(e)
	case session.DuplicateArrived:
		if b.Duplicates == nil {
			b.Duplicates = map[uint64]int{}
		}
		b.Duplicates[e.Ref.Seq]++
	case session.StrayArrived:
		b.keepCapped(e, &b.strays, batchStrays, &b.StrayDropped)
	case session.StderrLine:
		b.foldStderr(e)
	case session.NotificationArrived:
		b.keepCapped(e, &b.notifications, batchNotifications, &b.NotificationsDropped)
	case session.NoiseArrived:
		b.Noise++
	case session.Violation:
		b.Violations++
		b.LastViolation = e
	default:
		b.Items = append(b.Items, e)
	}
}

// keepCapped adds e to the items while fewer than most of its kind are
// kept, counting it in kept; past that it only counts it in dropped.
func (b *Batch) keepCapped(e any, kept *int, most int, dropped *int) {
	if *kept >= most {
		*dropped++
		return
	}
	*kept++
	b.Items = append(b.Items, e)
}

// foldProgress adds a progress update to its request's run, which keeps
// the newest batchRecentProgress.
func (b *Batch) foldProgress(e session.ProgressUpdated) {
	run := runOf(b, b.progressAt, e.Ref.Seq, func() *ProgressRun { return &ProgressRun{Ref: e.Ref} })
	run.Latest = e.Progress
	run.Count++
	if len(run.Recent) == batchRecentProgress {
		copy(run.Recent, run.Recent[1:])
		run.Recent = run.Recent[:len(run.Recent)-1]
	}
	run.Recent = append(run.Recent, e.Progress)
}

// foldLate keeps a late response or error as it came, and adds late
// progress to its request's run, which keeps the first batchLateFrames.
func (b *Batch) foldLate(e session.LateArrived) {
	if e.Late.Kind != session.LateProgress {
		b.Items = append(b.Items, e)
		return
	}
	run := runOf(b, b.lateAt, e.Ref.Seq, func() *LateRun { return &LateRun{Ref: e.Ref} })
	run.Count++
	run.Last = e.Late
	if len(run.Frames) < batchLateFrames {
		run.Frames = append(run.Frames, e.Late)
	}
}

// runOf is the run of request seq among the items, at its index in at;
// the first time, fresh makes it and it goes at the end of the items.
func runOf[R any](b *Batch, at map[uint64]int, seq uint64, fresh func() R) R {
	i, ok := at[seq]
	if !ok {
		i = len(b.Items)
		at[seq] = i
		b.Items = append(b.Items, fresh())
	}
	return b.Items[i].(R)
}

// foldStderr keeps the newest batchStderr lines (up to twice that
// between trims), counting those dropped.
func (b *Batch) foldStderr(e session.StderrLine) {
	b.Stderr = append(b.Stderr, e)
	if len(b.Stderr) >= 2*batchStderr {
		n := copy(b.Stderr, b.Stderr[len(b.Stderr)-batchStderr:])
		b.StderrDropped += len(b.Stderr) - n
		b.Stderr = b.Stderr[:n]
	}
}

// AddRecord is the tap observer: it must not block, so it only appends.
func (f *Feed) AddRecord(r wire.Record) {
	if r.Kind == wire.KindStderr {
		return // the stderr pane has it from the session
	}
	f.mu.Lock()
	b := f.cur
	if b == nil { // the feed ended; records of a closing transport
		f.mu.Unlock()
		return
	}
	b.Wire = append(b.Wire, r)
	if len(b.Wire) >= 2*batchWire {
		n := copy(b.Wire, b.Wire[len(b.Wire)-batchWire:])
		b.WireDropped += len(b.Wire) - n
		clear(b.Wire[n:])
		b.Wire = b.Wire[:n]
	}
	f.mu.Unlock()
	f.signal()
}

// Next blocks until there is a batch to deliver and the frame interval
// since the last one has passed, then returns it. It returns nil once
// the feed was stopped or delivered its last batch.
func (f *Feed) Next() *Batch {
	f.nextMu.Lock()
	defer f.nextMu.Unlock()
	for {
		f.mu.Lock()
		if f.cur == nil { // the last batch was delivered
			f.mu.Unlock()
			return nil
		}
		ready := !f.cur.empty() || f.ended
		wait := f.interval - time.Since(f.lastSent)
		f.mu.Unlock()
		if !ready {
			select {
			case <-f.notify:
				continue
			case <-f.stop:
				return nil
			}
		}
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-f.stop:
				t.Stop()
				return nil
			}
		}
		f.mu.Lock()
		b := f.cur
		b.Ended = f.ended
		if f.ended {
			f.cur = nil
		} else {
			f.cur = newBatch()
		}
		f.lastSent = time.Now()
		f.mu.Unlock()
		b.progressAt, b.lateAt = nil, nil
		return b
	}
}
