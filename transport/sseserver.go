package transport

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// SSEServerConfig tunes an SSEServer. Serve is required.
type SSEServerConfig struct {
	// Serve starts a peer on each new session's Conn and returns at once;
	// Close on what it returns ends the peer when the stream closes.
	Serve func(sessionID string, conn Conn) io.Closer
	// MessagePath is where clients POST; the endpoint event names it.
	// Default "/messages".
	MessagePath string
	// AllowRemote accepts a Host that is not a loopback name.
	AllowRemote bool
	// MaxBody bounds a POST body. Default DefaultMaxFrameSize.
	MaxBody int64
	// WriteTimeout bounds each write to the stream. Default 30s.
	WriteTimeout time.Duration
	// KeepAlive is how often an idle stream gets a comment. Default 25s.
	KeepAlive time.Duration
}

// SSEServer is the server side of the legacy HTTP+SSE transport (protocol
// 2024-11-05): GET opens a session's event stream, whose first event,
// endpoint, names the URL to POST messages to; each POST gets 202 and its
// answers go on the stream. The session lives as long as its stream.
type SSEServer struct {
	cfg SSEServerConfig

	mu       sync.Mutex
	sessions map[string]*sseSession
	closed   bool
	peers    sync.WaitGroup
}

// NewSSEServer returns a handler for both the SSE path (GET) and the
// message path (POST).
func NewSSEServer(cfg SSEServerConfig) *SSEServer {
	if cfg.MessagePath == "" {
		cfg.MessagePath = "/messages"
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxFrameSize
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = 25 * time.Second
	}
	return &SSEServer{cfg: cfg, sessions: map[string]*sseSession{}}
}

// sseSession is the Conn of one 2025 session.
type sseSession struct {
	id      string
	srv     *SSEServer
	inbound chan Message
	out     chan []byte
	done    chan struct{}
	once    sync.Once
}

// Recv implements Conn.
func (s *sseSession) Recv() (Message, error) {
	return recvOrClosed(s.inbound, s.done)
}

// Send implements Conn; it waits while the stream's queue is full, as a
// pipe would, until the stream's writer takes the frame or the session
// ends.
func (s *sseSession) Send(frame []byte) error {
	select {
	case s.out <- append([]byte(nil), frame...):
		return nil
	case <-s.done:
		return ErrClosed
	}
}

// Close implements Conn: the stream ends and the session id is forgotten.
func (s *sseSession) Close() error {
	s.once.Do(func() {
		close(s.done)
		s.srv.mu.Lock()
		delete(s.srv.sessions, s.id)
		s.srv.mu.Unlock()
	})
	return nil
}

// ServeHTTP implements http.Handler: GET opens a session's stream, POST
// delivers one message to the session its sessionId names.
func (h *SSEServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ok, why := checkOrigin(r, h.cfg.AllowRemote); !ok {
		httpError(w, http.StatusForbidden, why)
		return
	}
	switch r.Method {
	case http.MethodGet:
		h.stream(w, r)
	case http.MethodPost:
		h.post(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		httpError(w, http.StatusMethodNotAllowed, r.Method+" is not part of the HTTP+SSE transport; GET the stream, POST messages")
	}
}

// stream runs one session for as long as its client holds the stream.
func (h *SSEServer) stream(w http.ResponseWriter, r *http.Request) {
	var raw [16]byte
	_, _ = rand.Read(raw[:])
	s := &sseSession{id: hex.EncodeToString(raw[:]), srv: h,
		inbound: make(chan Message, 64), out: make(chan []byte, 1024), done: make(chan struct{})}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		httpError(w, http.StatusServiceUnavailable, errServerClosed.Error())
		return
	}
	h.sessions[s.id] = s
	h.peers.Add(1)
	h.mu.Unlock()
	peer := h.cfg.Serve(s.id, s)
	defer func() {
		_ = s.Close()
		go func() { // the peer waits for its handlers; the stream is over already
			defer h.peers.Done()
			_ = peer.Close()
		}()
	}()

	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	endpoint := h.cfg.MessagePath + "?sessionId=" + url.QueryEscape(s.id)
	buf := appendSSEEvent(nil, "", "endpoint", []byte(endpoint), 0)
	keepAlive := time.NewTicker(h.cfg.KeepAlive)
	defer keepAlive.Stop()
	for {
		_ = rc.SetWriteDeadline(time.Now().Add(h.cfg.WriteTimeout))
		if _, err := w.Write(buf); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		buf = buf[:0]
		select {
		case frame := <-s.out:
			buf = appendSSEEvent(buf, "", "message", frame, 0)
			for more := true; more && len(buf) < 64<<10; {
				select {
				case frame = <-s.out:
					buf = appendSSEEvent(buf, "", "message", frame, 0)
				default:
					more = false
				}
			}
		case <-keepAlive.C:
			buf = append(buf, keepAliveComment...)
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
}

// post delivers one message; its answer goes on the session's stream.
func (h *SSEServer) post(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("sessionId")
	if id == "" {
		httpError(w, http.StatusBadRequest, "missing sessionId: POST to the URL the endpoint event of your SSE stream named")
		return
	}
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil {
		httpError(w, http.StatusNotFound, "no such session (its SSE stream closed, or it never existed): open a new stream")
		return
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json, not "+quoteOrNone(r.Header.Get("Content-Type")))
		return
	}
	body, err := readBody(w, r, h.cfg.MaxBody)
	if err != nil {
		httpError(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	if _, _, err := splitBatch(body); err != nil {
		httpRPCError(w, http.StatusBadRequest, codeParseError, "parse error: "+err.Error())
		return
	}
	select {
	case s.inbound <- Message{Kind: wire.KindFrame, Data: body, Valid: true}: // checked by splitBatch
	case <-s.done:
		httpError(w, http.StatusNotFound, "the session ended before the message was taken")
		return
	case <-r.Context().Done():
		return
	}
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, "Accepted")
}

// Close ends every stream and waits for the peers.
func (h *SSEServer) Close() error {
	h.mu.Lock()
	h.closed = true
	live := make([]*sseSession, 0, len(h.sessions))
	for _, s := range h.sessions {
		live = append(live, s)
	}
	h.mu.Unlock()
	for _, s := range live {
		_ = s.Close()
	}
	h.peers.Wait()
	return nil
}
