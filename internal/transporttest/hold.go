package transporttest

import (
	"sync"

	"github.com/mcpoke/mcpoke/transport"
)

// Hold wraps a Conn so that the frames a test picks wait in Send until the
// test releases them: it looks at what happens between deciding to send
// and the frame reaching the peer.
type Hold struct {
	transport.Conn
	match   func(frame []byte) bool
	held    chan struct{}
	release chan struct{}
	heldOne sync.Once
	let     sync.Once
}

// NewHold wraps c; Send holds the frames for which match is true. A nil
// match holds nothing.
func NewHold(c transport.Conn, match func(frame []byte) bool) *Hold {
	return &Hold{Conn: c, match: match, held: make(chan struct{}), release: make(chan struct{})}
}

// Send implements transport.Conn.
func (h *Hold) Send(frame []byte) error {
	if h.match != nil && h.match(frame) {
		h.heldOne.Do(func() { close(h.held) })
		<-h.release
	}
	return h.Conn.Send(frame)
}

// Held is closed once a frame is held.
func (h *Hold) Held() <-chan struct{} { return h.held }

// Release lets the held frames go, and every later one through. It is
// safe to call more than once.
func (h *Hold) Release() { h.let.Do(func() { close(h.release) }) }
