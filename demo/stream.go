package demo

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/mcpoke/mcpoke/transport"
)

// maxFrame bounds one inbound line; mcpoke itself never sends more.
const maxFrame = transport.DefaultMaxFrameSize

// streamConn is the server side of stdio: newline-delimited frames on a
// reader and a writer. (transport only has the client side, which spawns
// a process.)
type streamConn struct {
	sc *bufio.Scanner

	mu  sync.Mutex
	w   io.Writer
	buf []byte
	err error // set once Close was called or a write failed
}

func newStreamConn(r io.Reader, w io.Writer) *streamConn {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxFrame)
	return &streamConn{sc: sc, w: w}
}

// Send implements transport.Conn: one write per frame, so concurrent
// handlers never interleave their lines.
func (c *streamConn) Send(frame []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	c.buf = append(append(c.buf[:0], frame...), '\n')
	if _, err := c.w.Write(c.buf); err != nil {
		c.err = err
		return err
	}
	return nil
}

// Recv implements transport.Conn. The end of input is a clean close.
func (c *streamConn) Recv() (transport.Message, error) {
	for c.sc.Scan() {
		line := bytes.TrimSpace(c.sc.Bytes())
		if len(line) == 0 {
			continue
		}
		kind := transport.KindNoise
		if json.Valid(line) {
			kind = transport.KindFrame
		}
		return transport.Message{Kind: kind, Data: bytes.Clone(line), Size: len(line)}, nil
	}
	if err := c.sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		return transport.Message{}, err
	}
	return transport.Message{}, transport.ErrClosed
}

// Close implements transport.Conn; it stops Send. Recv ends with the input.
func (c *streamConn) Close() error {
	c.mu.Lock()
	if c.err == nil {
		c.err = transport.ErrClosed
	}
	c.mu.Unlock()
	return nil
}
