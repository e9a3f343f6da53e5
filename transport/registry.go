package transport

import (
	"errors"
	"sync"
	"syscall"
	"time"
)

// live holds every Stdio whose server has not been stopped and reaped,
// including one whose Close is still under way, so that CloseAll and
// KillAll can stop their servers when mcpoke itself is told to quit.
var live = struct {
	sync.Mutex
	m map[*Stdio]struct{}
	// quitting is set by CloseAll and KillAll: a server started after
	// them would outlive mcpoke.
	quitting bool
}{m: map[*Stdio]struct{}{}}

// ErrQuitting is returned by StartStdio after CloseAll or KillAll.
var ErrQuitting = errors.New("transport: mcpoke is quitting")

func unregister(s *Stdio) {
	live.Lock()
	delete(live.m, s)
	live.Unlock()
}

// quit stops new servers from starting and returns every live Stdio.
func quit() []*Stdio {
	live.Lock()
	defer live.Unlock()
	live.quitting = true
	all := make([]*Stdio, 0, len(live.m))
	for s := range live.m {
		all = append(all, s)
	}
	return all
}

// CloseAll closes every open Stdio at once and returns when their servers
// are gone. Servers run in their own sessions, so neither a terminal's
// SIGINT nor a SIGTERM sent to mcpoke reaches them: main must
// install a handler that stops them before exiting, e.g.
//
//	sig := make(chan os.Signal, 1)
//	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
//	go func() { <-sig; transport.CloseAll(); os.Exit(130) }()
//
// CloseAll is polite, as Close is: a server that ignores stdin EOF and
// SIGTERM takes two CloseGraces to go. When the user insists (a second
// signal), use KillAll.
//
// If mcpoke is killed with SIGKILL no handler runs; on Linux the server is
// then killed by the kernel (see Pdeathsig in stdio_linux.go), but not its
// descendants (see the package doc).
//
// Last, CloseAll kills mcpoke's adopted children: descendants of servers
// that detached and dropped their tag, out of reach of every Close.
//
// After CloseAll, StartStdio fails with ErrQuitting.
func CloseAll() {
	var wg sync.WaitGroup
	for _, s := range quit() {
		wg.Go(func() { s.Close() })
	}
	wg.Wait()
	killAdopted()
}

// KillAll sends SIGKILL to the process group of every live server at
// once, without the polite steps of Close, and returns when they are
// reaped. It is the forced path, for when the user asks twice (a second
// Ctrl-C or signal): a Close or CloseAll already under way ends at once
// too, as its server is gone.
//
// After KillAll, StartStdio fails with ErrQuitting.
func KillAll() {
	all := quit()
	for _, s := range all {
		s.forced.Store(true)
		s.signal(syscall.SIGKILL)
	}
	var wg sync.WaitGroup
	for _, s := range all {
		// Close finds the server gone, or joins a Close under way, and
		// returns once it is reaped.
		wg.Go(func() { s.Close() })
	}
	wg.Wait()
	killAdopted()
}

// killAdopted kills and reaps mcpoke's children that are not servers of
// a live Stdio. On Linux mcpoke is a child subreaper, so a server's
// descendant whose parent died becomes mcpoke's child; transport is the
// only part of mcpoke that starts processes, so every such child is a
// server's descendant.
func killAdopted() {
	leaders := map[int]bool{}
	live.Lock()
	for s := range live.m {
		leaders[s.pid] = true
	}
	live.Unlock()
	reap := map[int]bool{}
	for range familySweeps {
		kids := adoptedChildren(leaders)
		alive := false
		for _, p := range kids {
			reap[p.pid] = true
			if !p.zombie {
				signalProc(p.pid, syscall.SIGKILL)
				alive = true
			}
		}
		if !alive {
			break
		}
		time.Sleep(familySweepPause)
	}
	reapAdopted(reap)
}
