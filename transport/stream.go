package transport

import (
	"io"
	"sync"
)

// Stream is the server side of stdio: newline-delimited frames read from r
// (a client's stdin) and written to w. The demo server runs on it. When
// the input ends, Recv returns io.EOF: the client closed its side, which
// the stdio spec makes the first step of shutdown.
type Stream struct {
	fr *frameReader

	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	closed bool
}

// NewStream returns a Conn that reads frames from r and writes them to w.
// maxFrame <= 0 means DefaultMaxFrameSize.
func NewStream(r io.Reader, w io.Writer, maxFrame int) *Stream {
	if maxFrame <= 0 {
		maxFrame = DefaultMaxFrameSize
	}
	return &Stream{fr: newFrameReader(r, maxFrame), w: w}
}

// Send implements Conn with one write per frame, so that concurrent
// senders never interleave their lines.
func (s *Stream) Send(frame []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.buf = append(append(s.buf[:0], frame...), '\n')
	_, err := s.w.Write(s.buf)
	return err
}

// Recv implements Conn; it returns io.EOF when the input ends.
func (s *Stream) Recv() (Message, error) { return s.fr.next() }

// Close implements Conn: it stops Send. Recv ends with the input.
func (s *Stream) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}
