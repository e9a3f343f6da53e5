package transport

import (
	"io"
	"slices"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// httpSession is one MCP session of an HTTPServer, and the Conn its peer
// (such as a session.Session) runs on: Recv yields the frames clients
// POST, Send routes each frame to the stream it belongs on.
type httpSession struct {
	id      string
	srv     *HTTPServer
	inbound chan Message
	done    chan struct{} // closed by Close
	once    sync.Once
	peer    io.Closer // what Serve returned; set once, before any POST

	// active counts the HTTP requests open on the session; idle ends it
	// after IdleTimeout with none.
	active int
	idle   *time.Timer

	mu         sync.Mutex
	version    string // protocol version the client asked for in initialize
	streams    map[int]*eventStream
	nextStream int
	finished   []int                   // complete POST streams, oldest first
	byRequest  map[string]*eventStream // unanswered request id → its stream
	byToken    map[string]*eventStream // progress token → its request's stream
	// cancelled holds unanswered request ids the client cancelled: their
	// streams stay open for late answers, but the ids may be used again.
	cancelled map[string]bool
	writerGen uint64
}

var _ RequestStreamCloser = (*httpSession)(nil)

func newHTTPSession(id string, srv *HTTPServer) *httpSession {
	s := &httpSession{
		id:         id,
		srv:        srv,
		inbound:    make(chan Message, 64),
		done:       make(chan struct{}),
		streams:    map[int]*eventStream{standaloneStream: newEventStream(standaloneStream)},
		nextStream: 1,
		byRequest:  map[string]*eventStream{},
		byToken:    map[string]*eventStream{},
		cancelled:  map[string]bool{},
	}
	return s
}

// Recv implements Conn: the next POSTed message, ErrClosed after Close.
func (s *httpSession) Recv() (Message, error) {
	return recvOrClosed(s.inbound, s.done)
}

// Send implements Conn. A response goes to the stream of its request, a
// progress notification to the stream of the request whose token it
// names; everything else to the GET stream, queued (bounded) until one is
// open. Send never waits for a client.
func (s *httpSession) Send(frame []byte) error {
	if s.closed() {
		return ErrClosed
	}
	env, err := parseRouting(frame)
	data := slices.Clone(frame)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.streams[standaloneStream]
	response := false
	switch {
	case err != nil:
		// Not ours to judge: the client may make sense of it.
	case env.isResponse():
		r := s.byRequest[env.id]
		if r == nil {
			// The GET stream must not carry responses, and no POST waits
			// for this one (its request never reached the peer).
			return nil
		}
		st, response = r, true
		s.release(r, env.id)
	case env.method == "notifications/progress" && env.token != "":
		if r := s.byToken[env.token]; r != nil {
			st = r
		}
	}
	if st.jsonOnly && !response {
		return nil // a JSON response carries only the answers
	}
	st.add(data, response, s.srv.maxEvents, s.srv.maxBytes)
	return nil
}

// release takes an answered (or cancelled and reused) request id off its
// stream; the stream is complete with its last.
func (s *httpSession) release(st *eventStream, id string) {
	delete(s.byRequest, id)
	delete(s.cancelled, id)
	st.answered(id)
	if st.complete {
		for _, t := range st.tokens {
			if s.byToken[t] == st {
				delete(s.byToken, t)
			}
		}
		s.finish(st)
		st.wake() // its writer ends the response
	}
}

// noteCancel records that the client cancelled a request in flight.
func (s *httpSession) noteCancel(id string) {
	s.mu.Lock()
	if s.byRequest[id] != nil {
		s.cancelled[id] = true
	}
	s.mu.Unlock()
}

// finish marks a POST stream complete, and forgets the oldest complete
// streams past the limit: they can no longer be resumed.
func (s *httpSession) finish(st *eventStream) {
	s.finished = append(s.finished, st.num)
	for len(s.finished) > s.srv.maxFinished {
		// A writer still sending it holds its own pointer and finishes.
		delete(s.streams, s.finished[0])
		s.finished = s.finished[1:]
	}
}

// Close implements Conn: it ends every stream and Recv; the server forgets
// the session, so its id gets 404 from now on.
func (s *httpSession) Close() error {
	s.once.Do(func() {
		// Forgotten first: whoever sees done closed gets 404 for the id.
		s.srv.forget(s.id)
		close(s.done)
		s.mu.Lock()
		if s.idle != nil {
			s.idle.Stop()
		}
		s.mu.Unlock()
	})
	return nil
}

// openStream registers the requests of one POST on a new stream. It
// fails when an id is already in flight: its response could not be
// routed. Tokens already in use are not taken over.
func (s *httpSession) openStream(reqs []routing, jsonOnly bool) (*eventStream, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[string]bool, len(reqs))
	for _, r := range reqs {
		if (s.byRequest[r.id] != nil && !s.cancelled[r.id]) || seen[r.id] {
			return nil, false
		}
		seen[r.id] = true
	}
	for _, r := range reqs {
		if old := s.byRequest[r.id]; old != nil {
			// Cancelled and not answered: a late answer now would be taken
			// for the new request's, so the old stream lets the id go.
			s.release(old, r.id)
		}
	}
	st := newEventStream(s.nextStream)
	s.nextStream++
	st.jsonOnly = jsonOnly
	for _, r := range reqs {
		st.requests = append(st.requests, r.id)
		s.byRequest[r.id] = st
		if r.token != "" && s.byToken[r.token] == nil {
			st.tokens = append(st.tokens, r.token)
			s.byToken[r.token] = st
		}
	}
	s.streams[st.num] = st
	return st, true
}

// deliver hands one POSTed message to the peer, waiting while its queue
// is full. It fails when the session ends or the client gives up.
func (s *httpSession) deliver(frame []byte, gone <-chan struct{}) bool {
	// An ended session takes nothing, though its inbound queue has room:
	// select alone would pick between the two at random.
	if s.closed() {
		return false
	}
	select {
	case s.inbound <- Message{Kind: wire.KindFrame, Data: frame, Valid: true}: // checked by splitBatch
		return true
	case <-s.done:
		return false
	case <-gone:
		return false
	}
}

// closed reports whether the session has ended.
func (s *httpSession) closed() bool {
	return isShut(s.done)
}

// dropStream forgets a stream whose requests never reached the peer.
func (s *httpSession) dropStream(st *eventStream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range st.requests {
		if s.byRequest[id] == st {
			delete(s.byRequest, id)
		}
	}
	for _, t := range st.tokens {
		if s.byToken[t] == st {
			delete(s.byToken, t)
		}
	}
	delete(s.streams, st.num)
}

// CloseRequestStream implements RequestStreamCloser on the server side:
// it closes the connection that carries the request's stream, not the
// stream. Its messages are kept, and the client resumes with GET and
// Last-Event-ID after the retry delay (SSE polling, SEP-1699). ok is
// false when the request is not in flight here.
func (s *httpSession) CloseRequestStream(id []byte) (ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.byRequest[string(id)]
	if st == nil {
		return false, nil
	}
	st.writer = 0
	st.wake()
	return true, nil
}

// enter and leave bracket each HTTP request on the session; the idle
// clock runs only while none is open.
func (s *httpSession) enter() {
	s.mu.Lock()
	s.active++
	if s.idle != nil {
		s.idle.Stop()
	}
	s.mu.Unlock()
}

func (s *httpSession) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if s.active > 0 || s.closed() {
		return
	}
	if s.idle == nil {
		s.idle = time.AfterFunc(s.srv.cfg.IdleTimeout, s.expire)
		return
	}
	s.idle.Reset(s.srv.cfg.IdleTimeout)
}

// expire ends the session if it is still idle.
func (s *httpSession) expire() {
	s.mu.Lock()
	idle := s.active == 0
	s.mu.Unlock()
	if idle && !s.closed() {
		s.srv.end(s)
	}
}
