package session

import (
	"container/heap"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/clock"
)

// deadlines is the one timer behind every request's timeouts: a heap of
// deadlines and a single clock timer armed for the earliest. A call's
// timeout then costs a push and a pop, not a runtime timer of its own,
// whose arming wakes the runtime's poller on every call (about 2 µs of a
// 6 µs round trip; BenchmarkRoundTripTimeout).
//
// With lazy set (the real clock), the clock timer stays armed when the
// last deadline goes: a run of calls one after the other then never
// touches it, and a timer that fires with nothing due costs nothing. A
// fake clock sees it stopped, so that tests can count what is armed.
//
// Lock order: Session.mu, then deadlines.mu, then the clock's. Callbacks
// run with no lock held.
type deadlines struct {
	clock clock.Clock
	lazy  bool

	mu    sync.Mutex
	heap  deadlineHeap
	timer clock.Timer // armed for at; nil when none is
	at    time.Time
	seq   uint64 // orders deadlines set for the same time, as set
}

// deadline is one timeout in the heap; it is the clock.Timer its owner
// holds.
type deadline struct {
	ds  *deadlines
	at  time.Time
	seq uint64
	f   func()
	i   int // index in the heap; -1 when not in it
}

// AfterFunc calls f in its own goroutine after d, as clock.AfterFunc does.
func (ds *deadlines) AfterFunc(d time.Duration, f func()) clock.Timer {
	dl := &deadline{ds: ds, f: f, i: -1}
	dl.Reset(d)
	return dl
}

// Stop implements clock.Timer.
func (dl *deadline) Stop() bool {
	ds := dl.ds
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if dl.i < 0 {
		return false
	}
	heap.Remove(&ds.heap, dl.i)
	ds.rearm()
	return true
}

// Reset implements clock.Timer.
func (dl *deadline) Reset(d time.Duration) bool {
	ds := dl.ds
	ds.mu.Lock()
	defer ds.mu.Unlock()
	was := dl.i >= 0
	dl.at = ds.clock.Now().Add(d)
	ds.seq++
	dl.seq = ds.seq
	if was {
		heap.Fix(&ds.heap, dl.i)
	} else {
		heap.Push(&ds.heap, dl)
	}
	ds.rearm()
	return was
}

// rearm makes the clock timer fire no later than the earliest deadline.
// A timer armed earlier is left alone: it re-arms when it fires. Callers
// hold ds.mu.
func (ds *deadlines) rearm() {
	if len(ds.heap) == 0 {
		if ds.timer != nil && !ds.lazy {
			ds.timer.Stop()
			ds.timer = nil
		}
		return
	}
	first := ds.heap[0].at
	if ds.timer != nil && !ds.at.After(first) {
		if ds.lazy || ds.at.Equal(first) {
			return
		}
	}
	if ds.timer != nil {
		ds.timer.Stop()
	}
	ds.at = first
	ds.timer = ds.clock.AfterFunc(first.Sub(ds.clock.Now()), ds.fire)
}

// stop disarms the clock timer for good, lazy or not: the session ended,
// and its requests' deadlines with it.
func (ds *deadlines) stop() {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	ds.lazy = false
	if ds.timer != nil {
		ds.timer.Stop()
		ds.timer = nil
	}
}

// fire runs the callbacks of every deadline due and re-arms for the next.
func (ds *deadlines) fire() {
	ds.mu.Lock()
	now := ds.clock.Now()
	var due []func()
	for len(ds.heap) > 0 && !ds.heap[0].at.After(now) {
		due = append(due, heap.Pop(&ds.heap).(*deadline).f)
	}
	ds.timer = nil
	if len(ds.heap) > 0 {
		ds.at = ds.heap[0].at
		ds.timer = ds.clock.AfterFunc(ds.at.Sub(now), ds.fire)
	}
	ds.mu.Unlock()
	for i, f := range due {
		if ds.lazy && i < len(due)-1 {
			go f() // each in its own goroutine, as their own timers would
			continue
		}
		f()
	}
}

// deadlineHeap orders deadlines by time (container/heap).
type deadlineHeap []*deadline

func (h deadlineHeap) Len() int { return len(h) }
func (h deadlineHeap) Less(i, j int) bool {
	return h[i].at.Before(h[j].at) || h[i].at.Equal(h[j].at) && h[i].seq < h[j].seq
}
func (h deadlineHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}
func (h *deadlineHeap) Push(x any) {
	dl := x.(*deadline)
	dl.i = len(*h)
	*h = append(*h, dl)
}
func (h *deadlineHeap) Pop() any {
	old := *h
	dl := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	dl.i = -1
	return dl
}
