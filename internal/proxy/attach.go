package proxy

import (
	"bufio"
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// AttachServer serves a proxy's history and live traffic to mcpoke
// attach on a Unix socket (see SocketDir), to this user's processes only.
type AttachServer struct {
	l       *net.UnixListener
	path    string
	history *History
	// controls carries out the clients' control messages (see
	// ControlRequest); nil refuses them.
	controls *Controls
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	closed   bool
}

// clientWriteTimeout bounds one write to an attached client; one that
// stops reading is dropped.
const clientWriteTimeout = 5 * time.Second

// ServeAttach listens for mcpoke attach under name.
func ServeAttach(name string, history *History) (*AttachServer, error) {
	return ServeAttachControls(name, history, nil)
}

// ServeAttachControls listens for mcpoke attach under name, and carries
// out the clients' control messages with controls.
func ServeAttachControls(name string, history *History, controls *Controls) (*AttachServer, error) {
	l, path, err := listen(name)
	if err != nil {
		return nil, err
	}
	s := &AttachServer{l: l, path: path, history: history, controls: controls, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path is the socket's path.
func (s *AttachServer) Path() string { return s.path }

func (s *AttachServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.l.AcceptUnix()
		if err != nil {
			return
		}
		if uid, err := peerUID(c); err != nil || uid != os.Getuid() {
			c.Close() // another user's process: nothing for it here
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(c)
	}
}

// serve writes the history, then each new line, until the client goes,
// falls behind, or the proxy ends.
func (s *AttachServer) serve(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	past, next, stop := s.history.Follow()
	defer stop()
	// The client may write control messages, a line each; its end shows
	// as a read error. Replies go out between whole lines of the stream.
	gone := make(chan struct{})
	replies := make(chan []byte, 16)
	go func() {
		defer close(gone)
		r := bufio.NewReaderSize(c, 4<<10)
		for {
			line, err := readBoundedLine(r, maxControlLine)
			if err != nil {
				return
			}
			reply := s.reply(line)
			select {
			case replies <- reply:
			case <-time.After(clientWriteTimeout):
				return // the client sends faster than it reads
			}
		}
	}()
	w := bufio.NewWriterSize(c, 64<<10)
	write := func(line []byte) bool {
		c.SetWriteDeadline(time.Now().Add(clientWriteTimeout))
		_, err := w.Write(line)
		return err == nil
	}
	for _, line := range past {
		if !write(line) {
			return
		}
	}
	for {
		if len(next) == 0 {
			c.SetWriteDeadline(time.Now().Add(clientWriteTimeout))
			if w.Flush() != nil {
				return
			}
		}
		select {
		case line, ok := <-next:
			if !ok {
				c.SetWriteDeadline(time.Now().Add(clientWriteTimeout))
				w.Flush()
				return
			}
			if !write(line) {
				return
			}
		case reply := <-replies:
			if !write(reply) {
				return
			}
		case <-gone:
			return
		}
	}
}

// reply is the reply line to one line a client wrote.
func (s *AttachServer) reply(line []byte) []byte {
	if s.controls == nil {
		return []byte(`{"reply":"error","error":"this proxy takes no control messages"}` + "\n")
	}
	return s.controls.handleControlLine(line)
}

// readBoundedLine reads one line of at most max bytes.
func readBoundedLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		part, err := r.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > max {
			return nil, errors.New("control line too long")
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, err
	}
}

// Close stops listening, removes the socket, ends the clients' streams
// once they have what was recorded, and waits for them.
func (s *AttachServer) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.l.Close() // removes the socket file too
	s.history.Close()
	s.wg.Wait()
}
