package transport

import (
	"errors"
	"fmt"
	"io"
	"syscall"
)

// RawOutput hands a server's output over as the bytes it wrote, for a
// relay that must pass them on unchanged (mcpoke proxy): no framing, no
// line-length limit, no classification. Each function gets the bytes of
// one read, in order, on the goroutine that reads that pipe; p is reused
// once the function returns. Close keeps the output flowing until the
// server is gone (a relay must pass on its last words), and the exit is
// reported by Wait once both functions have returned for the last time.
type RawOutput struct {
	Stdout func(p []byte)
	Stderr func(p []byte)
}

// rawReadSize is the buffer of each raw reader: a pipe holds 64 KiB.
const rawReadSize = 64 << 10

// Write writes p to the server's stdin as it is (raw mode, see
// RawOutput; it works in any mode, but a frame sent with Send is
// whole). Concurrent writers are serialised with Send.
func (s *Stdio) Write(p []byte) (int, error) {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	n, err := s.stdin.Write(p)
	if err == nil {
		return n, nil
	}
	if errors.Is(err, syscall.EPIPE) {
		return n, errors.New("transport: write: server closed its stdin")
	}
	return n, fmt.Errorf("transport: write: %w", err)
}

// Wait returns once the server was reaped and its output read to the
// end (or its pipes idle after it left), with how it ended.
func (s *Stdio) Wait() *ExitError {
	<-s.done
	return s.exitErr
}

// Exited is closed when the server process ended (before it is reaped
// and its output drained; see Wait).
func (s *Stdio) Exited() <-chan struct{} { return s.exited }

// readRaw passes one of the server's pipes to f until its end.
func (s *Stdio) readRaw(f *pipeReader, to func([]byte), atEOF func()) {
	defer s.readerDone()
	buf := make([]byte, rawReadSize)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			to(buf[:n])
		}
		if err == io.EOF && atEOF != nil {
			atEOF()
		}
		if err != nil {
			return
		}
	}
}

// keepsOutput says whether output is still wanted once Close was called:
// in raw mode it is, until the server is gone.
func (s *Stdio) keepsOutput() bool {
	return s.opts.Raw != nil || !s.isClosed()
}
