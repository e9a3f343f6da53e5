package connect

import (
	"sync/atomic"

	"github.com/mcpoke/mcpoke/transport"
)

// loggingIn is an Authorizer that says when a login waits for the person
// (internal/auth's Provider).
type loggingIn interface {
	LoggingIn() bool
}

// loginCounter is one that also counts the logins begun, so that a login
// that began and ended between two looks is not missed.
type loginCounter interface {
	LoginsBegun() int64
}

// loginHold returns a hold for a timeout (session.CallOptions.HoldTimeout):
// true while a login waits for the person, or when one began since the
// hold last answered, so that the wait starts again once the person is
// done. nil when a says nothing about logins.
func loginHold(a transport.Authorizer) func() bool {
	li, ok := a.(loggingIn)
	if !ok {
		return nil
	}
	lc, _ := a.(loginCounter)
	var seen atomic.Int64
	if lc != nil {
		seen.Store(lc.LoginsBegun())
	}
	return func() bool {
		held := li.LoggingIn()
		if lc != nil {
			if n := lc.LoginsBegun(); seen.Swap(n) != n {
				held = true
			}
		}
		return held
	}
}
