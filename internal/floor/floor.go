// Package floor measures this machine's floor for a stdio round trip: a
// raw newline-framed ping-pong over pipes between two processes, with a
// benchmark's own message sizes and no JSON-RPC at all. Figures measured
// beside it travel as ratios; absolute times on a shared machine do not.
package floor

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// Line returns a JSON object of exactly size bytes (at least 12), without
// its newline: the filler that stands for a request or a response.
func Line(size int) []byte {
	const head, tail = `{"pad":"`, `"}`
	n := max(size-len(head)-len(tail), 0)
	b := make([]byte, 0, len(head)+n+len(tail))
	b = append(b, head...)
	for range n {
		b = append(b, 'x')
	}
	return append(b, tail...)
}

// Echo answers every line read from r with reply and a newline, until r
// ends: the far end of the ping-pong.
func Echo(r io.Reader, w io.Writer, reply []byte) error {
	in := bufio.NewReaderSize(r, 64<<10)
	out := append(append([]byte(nil), reply...), '\n')
	for {
		if _, err := readLine(in); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
}

// readLine reads through the next newline; long lines are read whole.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = r.ReadSlice('\n')
	}
	return line, err
}

// Peer is the far end, a child process running Echo on its stdin and
// stdout.
type Peer struct {
	cmd *exec.Cmd
	w   io.WriteCloser
	r   *bufio.Reader
}

// Start starts cmd as the far end; its stdin and stdout become the pipes.
func Start(cmd *exec.Cmd) (*Peer, error) {
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the floor's echo process: %w", err)
	}
	return &Peer{cmd: cmd, w: w, r: bufio.NewReaderSize(r, 64<<10)}, nil
}

// RoundTrip writes line and a newline, and reads the answer line.
func (p *Peer) RoundTrip(line []byte) error {
	if _, err := p.w.Write(line); err != nil {
		return err
	}
	_, err := readLine(p.r)
	return err
}

// Close ends the far end and waits for it.
func (p *Peer) Close() error {
	p.w.Close()
	return p.cmd.Wait()
}

// Measure makes warmup then n round trips of a request of reqSize bytes
// and returns the n times.
func (p *Peer) Measure(reqSize, warmup, n int, stop func() bool) ([]time.Duration, error) {
	line := append(Line(reqSize), '\n')
	for range warmup {
		if err := p.RoundTrip(line); err != nil {
			return nil, err
		}
	}
	rounds := make([]time.Duration, 0, n)
	for range n {
		if stop != nil && stop() {
			break
		}
		t0 := time.Now()
		if err := p.RoundTrip(line); err != nil {
			return rounds, err
		}
		rounds = append(rounds, time.Since(t0))
	}
	return rounds, nil
}
