// Package clock is the one source of time for the session layer: request
// timeouts, settle windows, and the timing of late traffic. Production code
// uses Real; tests pass the fake from internal/clocktest, so that time moves
// only where a test says.
package clock

import "time"

// Clock tells the time and runs functions later.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc.
type Timer interface {
	// Stop prevents the call; it reports whether the timer was armed.
	Stop() bool
	// Reset re-arms the timer to fire d from now; it reports whether the
	// timer was armed.
	Reset(d time.Duration) bool
}

// Real returns the clock of package time.
func Real() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
