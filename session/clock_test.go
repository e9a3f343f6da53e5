package session

import (
	"sort"
	"sync"
	"time"
)

// fakeClock fires timers only when a test calls Advance, so timeouts and
// settle windows happen exactly where a test puts them.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c    *fakeClock
	at   time.Time
	f    func()
	live bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f, live: true}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.live
	t.live = false
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.live
	t.at, t.live = t.c.now.Add(d), true
	if !was {
		t.c.timers = append(t.c.timers, t)
	}
	return was
}

// Advance moves time forward by d and runs every timer due, in order, on
// the caller's goroutine.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
		var due *fakeTimer
		for len(c.timers) > 0 {
			t := c.timers[0]
			if !t.live {
				c.timers = c.timers[1:]
				continue
			}
			if !t.at.After(end) {
				due = t
				c.timers = c.timers[1:]
				t.live = false
				c.now = t.at
			}
			break
		}
		if due == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		due.f()
	}
}
