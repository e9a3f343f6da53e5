// Package proxy is mcpoke proxy: it stands between a host (Claude
// Desktop, an SDK client, mcpoke itself) and an MCP server and relays
// their traffic byte for byte, in order, at once. Records of what passed
// (transcripts, the request table, attach's history) are a side effect
// made as the bytes go on and read on a goroutine of their own: they
// never bound or re-encode what is relayed.
//
// Directions are the host's: what the host sends is wire.Out, as if the
// host were mcpoke, so that a proxy's transcript reads like mcpoke's own
// and `mcpoke diagram` draws the host's requests.
package proxy

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// StdioOptions says which server the stdio relay starts and where the
// host is.
type StdioOptions struct {
	Command string
	Args    []string
	Env     []string // KEY=VALUE added to the inherited environment
	Dir     string

	// The host's side: what it writes to the server, where the server's
	// stdout goes, and where its stderr goes.
	HostIn  io.Reader
	HostOut io.Writer
	HostErr io.Writer

	// CloseGrace is how long the server gets after the host closed its
	// input (EOF on the server's stdin), and again after SIGTERM, before
	// it and its family are stopped; 0 means transport.DefaultCloseGrace.
	CloseGrace time.Duration

	// Recorder, if set, gets a record of every line that passed.
	Recorder *Recorder

	// Now stamps records; nil means time.Now.
	Now func() time.Time

	// Controls, if set, gets the relay's kill switch (see Kill).
	Controls *Controls
	// Kill says what the kill switch does besides cancelling upstream.
	Kill KillOptions
	// Faults provoke the host (see Faults).
	Faults Faults
}

// Relay events, recorded as wire.KindRelay lines.
const (
	EventHostClosed   = "the host closed its input"
	EventHostGone     = "the host stopped reading: the server's output is dropped from here on"
	EventServerClosed = "the server stopped reading its input: the host's lines are dropped from here on"
	EventStopped      = "the proxy was told to stop: stopping the server"
)

// RunStdio starts the server and relays between it and the host until
// the server has exited and its output has passed on. The host closing
// its input closes the server's stdin; a server that does not exit then
// is stopped after CloseGrace (SIGTERM), and again (SIGKILL), with every
// process it spawned. Cancelling ctx stops the server the same way. The
// result is the exit status for the proxy: the server's own, or 128+n
// for a server killed by signal n.
func RunStdio(ctx context.Context, opts StdioOptions) (int, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	// The relay hands each read's bytes to the recorder, which cuts them
	// into line records on its own goroutine: all the relay does for the
	// records is copy the bytes and read the clock.
	emit := func(wire.Record) {}
	seen := func(*lineSplitter, []byte) {}
	var fromHost, toHost, serverErr *lineSplitter
	if rec := opts.Recorder; rec != nil {
		emit = rec.record
		seen = func(l *lineSplitter, p []byte) { rec.chunk(l, now(), p) }
		fromHost, toHost, serverErr = rec.lines(wire.Out, false), rec.lines(wire.In, false), rec.lines(wire.In, true)
	}
	event := func(text string) {
		emit(wire.Record{At: now(), Dir: wire.In, Kind: wire.KindRelay, Data: []byte(text)})
	}

	var hostGone atomic.Bool
	hostGate := newLineGate(func(p []byte) error {
		_, err := opts.HostOut.Write(p)
		if err != nil {
			// Keep reading the server, so that it is not blocked on a
			// full pipe and can notice its stdin closing.
			hostGone.Store(true)
			event(EventHostGone)
		}
		return err
	})
	// outMu makes passing a chunk to the host and recording it one step
	// as the host's leaving sees it: a host that got an answer and then
	// closed its input must not be recorded leaving first, with the
	// answer still pending (the card would say it left it so). The chunk
	// is recorded before it goes on, so that what the host sends on
	// reading it (a cancel on a progress) is recorded after it.
	var outMu sync.Mutex
	out := func(p []byte) {
		outMu.Lock()
		seen(toHost, p)
		hostGate.pass(p)
		outMu.Unlock()
	}
	errOut := func(p []byte) {
		opts.HostErr.Write(p) // a host that ignores stderr loses nothing else
		seen(serverErr, p)
	}
	srv, err := transport.StartStdio(transport.StdioOptions{
		Command: opts.Command, Args: opts.Args, Env: opts.Env, Dir: opts.Dir,
		CloseGrace: opts.CloseGrace,
		Raw:        &transport.RawOutput{Stdout: out, Stderr: errOut},
	})
	if err != nil {
		return 1, err
	}
	serverGate := newLineGate(func(p []byte) error {
		_, err := srv.Write(p)
		return err
	})
	if opts.Controls != nil || opts.Faults.any() {
		k := &stdioKiller{opts: opts.Kill, faults: opts.Faults, toServer: serverGate, toHost: hostGate, event: event}
		k.watch()
		if opts.Recorder != nil {
			opts.Recorder.ObserveParsed(k.observe)
		}
		if opts.Faults.AnswerAfterCancel {
			// The host's requests are noted on the relay's goroutine, so
			// that the faults know an answer's method when it comes.
			notes := &lineSplitter{dir: wire.Out, now: now, emit: k.noteHost}
			record := seen
			seen = func(l *lineSplitter, p []byte) {
				if l == fromHost {
					notes.feed(p)
				}
				record(l, p)
			}
		}
		if opts.Controls != nil {
			opts.Controls.SetSwitch(k)
			defer opts.Controls.SetSwitch(nil)
		}
	}

	var stopOnce sync.Once
	stop := func(why string) {
		stopOnce.Do(func() {
			if why == EventHostClosed {
				outMu.Lock()
				event(why)
				outMu.Unlock()
			} else {
				event(why)
			}
			go srv.Close()
		})
	}
	go func() {
		relayHostInput(opts.HostIn, serverGate, func(p []byte) { seen(fromHost, p) }, event)
		if opts.Recorder != nil {
			opts.Recorder.endLines(fromHost, now())
		}
		stop(EventHostClosed)
	}()
	go func() {
		select {
		case <-ctx.Done():
			stop(EventStopped)
		case <-srv.Exited():
		}
	}()

	exit := srv.Wait()
	if opts.Recorder != nil {
		opts.Recorder.endLines(toHost, now())
		opts.Recorder.endLines(serverErr, now())
	}
	event(exitEvent(exit))
	srv.Close() // unregisters it; the server is gone already
	return exitStatus(exit), nil
}

// relayHostInput passes the host's bytes to the server's stdin as they
// come. Once the server stops taking them they are read and dropped, so
// that the host never blocks on a proxy whose server is gone. The bytes
// are handed to the records (seen) just before they go on: the server's
// answer to a request is then never recorded before the request (the
// two directions are relayed on two goroutines).
func relayHostInput(in io.Reader, srv *lineGate, seen func([]byte), event func(string)) {
	buf := make([]byte, 64<<10)
	serverTakes := true
	for {
		n, err := in.Read(buf)
		if n > 0 {
			seen(buf[:n])
			if serverTakes {
				if werr := srv.pass(buf[:n]); werr != nil {
					serverTakes = false
					event(EventServerClosed)
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// exitEvent says how the server ended, for the records.
func exitEvent(e *transport.ExitError) string {
	if e == nil {
		return "the server exited"
	}
	return e.Error()
}

// exitStatus is the proxy's exit status for the server's end: its own
// code, or 128+n after signal n, as a shell reports it.
func exitStatus(e *transport.ExitError) int {
	switch {
	case e == nil:
		return 0
	case e.Signal != "":
		if n := unix.SignalNum(e.Signal); n != 0 {
			return 128 + int(n)
		}
		return 1
	case e.Code < 0:
		return 1
	}
	return e.Code
}
