package transport

import (
	"testing"
	"time"
)

// hangGuard bounds waits that only a bug makes long. It is generous: CI
// runs go test -race on a loaded machine. Tests assert order and state,
// never that something was quick.
const hangGuard = 20 * time.Second

// recv is Recv with a deadline, so a broken transport fails the test
// instead of hanging it.
func recv(t *testing.T, c Conn) (Message, error) {
	t.Helper()
	type result struct {
		m   Message
		err error
	}
	ch := make(chan result, 1)
	go func() {
		m, err := c.Recv()
		ch <- result{m, err}
	}()
	select {
	case r := <-ch:
		return r.m, r.err
	case <-time.After(hangGuard):
		t.Fatalf("Recv returned nothing within %v", hangGuard)
		return Message{}, nil
	}
}

// recvWithin receives from ch, failing the test if nothing comes within
// hangGuard; what says what the value means.
func recvWithin[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("timed out after %v waiting for %s", hangGuard, what)
		var zero T
		return zero
	}
}
