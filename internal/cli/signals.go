package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
)

// signalGrace is how long commands get to wind down after SIGINT, SIGTERM
// or SIGHUP (the UI restores the terminal; call cancels its request and
// reports) before every server is stopped and mcpoke exits anyway.
const signalGrace = 3 * time.Second

// stopOnSignal returns a context that ends at the first signal, and a
// function that says which signal came, if any. A second signal, or the
// grace period running out, kills every server mcpoke started (SIGKILL,
// no more politeness: the first signal already asked) and exits at once:
// servers run in process groups of their own, so the terminal's signals
// do not reach them, and without this they would outlive mcpoke.
func stopOnSignal() (context.Context, func() (int, bool)) {
	ctx, cancel := context.WithCancelCause(context.Background())
	var got atomic.Int32
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sig
		n := signalNumber(s)
		got.Store(int32(n))
		cancel(fmt.Errorf("%v signal received", s))
		select {
		case <-sig:
		case <-time.After(signalGrace):
		}
		connect.KillAll()
		os.Exit(128 + n)
	}()
	return ctx, func() (int, bool) {
		n := int(got.Load())
		return n, n != 0
	}
}

func signalNumber(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return int(syscall.SIGINT)
}
