// Package clocktest is the fake clock.Clock every test uses: time moves
// only when a test calls Advance, so timeouts, settle windows and late
// delays happen exactly where the test puts them.
package clocktest

import (
	"slices"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/clock"
)

// Epoch is where every fake clock starts.
var Epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Clock is a fake clock.Clock. By default Advance runs the timers that
// come due on the caller's goroutine, one at a time, in the order they are
// due, with Now at each one's due time: what a test sees after Advance
// returns is everything those timers did.
type Clock struct {
	async bool

	mu     sync.Mutex
	now    time.Time
	timers []*timer
}

// Option tunes a Clock.
type Option func(*Clock)

// Async makes Advance move to the end first and then start each due timer
// in its own goroutine, like time.AfterFunc. For tests whose timer
// callbacks must not run on the test's goroutine.
func Async() Option { return func(c *Clock) { c.async = true } }

// New returns a fake clock at Epoch.
func New(opts ...Option) *Clock {
	c := &Clock{now: Epoch}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Now implements clock.Clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc implements clock.Clock: f runs when Advance passes now+d.
func (c *Clock) AfterFunc(d time.Duration, f func()) clock.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &timer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

// Armed counts the timers waiting to fire.
func (c *Clock) Armed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Advance moves time forward by d and fires every timer due by then,
// including timers that those timers arm within d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	if c.async {
		c.now = end
		var due []*timer
		for t := c.next(end); t != nil; t = c.next(end) {
			due = append(due, t)
		}
		c.mu.Unlock()
		for _, t := range due {
			go t.f()
		}
		return
	}
	for {
		// One at a time: a timer may arm, reset or stop the others.
		t := c.next(end)
		if t == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		c.now = t.at
		c.mu.Unlock()
		t.f()
		c.mu.Lock()
	}
}

// next disarms and returns the earliest timer due by end (ties in the
// order they were armed), or nil. Callers hold c.mu.
func (c *Clock) next(end time.Time) *timer {
	i := -1
	for j, t := range c.timers {
		if !t.at.After(end) && (i < 0 || t.at.Before(c.timers[i].at)) {
			i = j
		}
	}
	if i < 0 {
		return nil
	}
	t := c.timers[i]
	c.disarm(t)
	return t
}

// disarm takes t off the armed list. Callers hold c.mu.
func (c *Clock) disarm(t *timer) bool {
	i := slices.Index(c.timers, t)
	if i < 0 {
		return false
	}
	c.timers = slices.Delete(c.timers, i, i+1)
	return true
}

type timer struct {
	c  *Clock
	at time.Time
	f  func()
}

// Stop implements clock.Timer.
func (t *timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	return t.c.disarm(t)
}

// Reset implements clock.Timer.
func (t *timer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.c.disarm(t)
	t.at = t.c.now.Add(d)
	t.c.timers = append(t.c.timers, t)
	return was
}
