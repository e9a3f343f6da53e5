package transport

import (
	"errors"
	"sync"
)

// live holds every Stdio that has not been closed, so that CloseAll can
// stop their servers when mcpoke itself is told to quit.
var live = struct {
	sync.Mutex
	m map[*Stdio]struct{}
	// quitting is set by CloseAll: a server started after it would
	// outlive mcpoke.
	quitting bool
}{m: map[*Stdio]struct{}{}}

// ErrQuitting is returned by StartStdio after CloseAll.
var ErrQuitting = errors.New("transport: mcpoke is quitting")

func unregister(s *Stdio) {
	live.Lock()
	delete(live.m, s)
	live.Unlock()
}

// CloseAll closes every open Stdio at once and returns when their servers
// are gone. Servers run in their own process groups, so neither a
// terminal's SIGINT nor a SIGTERM sent to mcpoke reaches them: main must
// install a handler that calls CloseAll before exiting, e.g.
//
//	sig := make(chan os.Signal, 1)
//	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
//	go func() { <-sig; transport.CloseAll(); os.Exit(130) }()
//
// If mcpoke is killed with SIGKILL no handler runs; on Linux the server is
// then killed by the kernel (see Pdeathsig in stdio_linux.go).
//
// After CloseAll, StartStdio fails with ErrQuitting.
func CloseAll() {
	live.Lock()
	live.quitting = true
	all := make([]*Stdio, 0, len(live.m))
	for s := range live.m {
		all = append(all, s)
	}
	live.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() { s.Close() })
	}
	wg.Wait()
}
