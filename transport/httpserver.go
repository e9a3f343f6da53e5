package transport

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// StreamableHTTPVersions are the protocol versions whose Streamable HTTP
// transport HTTPServer implements.
var StreamableHTTPVersions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}

// Header names of the Streamable HTTP transport.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	headerLastEventID     = "Last-Event-ID"
)

// HTTPServerConfig tunes an HTTPServer. Serve is required.
type HTTPServerConfig struct {
	// Serve starts a peer, such as a session.Session, on the Conn of each
	// new MCP session and returns at once; Close on what it returns ends
	// the peer (after a DELETE, or when the server closes).
	Serve func(sessionID string, conn Conn) io.Closer
	// AllowRemote accepts requests addressed to a Host that is not a
	// loopback name. The Origin check stays.
	AllowRemote bool
	// MaxSessions bounds the sessions alive at once; initialize gets 503
	// past it. Default 1000.
	MaxSessions int
	// MaxStoredEvents and MaxStoredBytes bound the events each stream keeps
	// for resumption. Defaults 16,384 and 16 MiB.
	MaxStoredEvents, MaxStoredBytes int
	// MaxFinishedStreams is how many answered POST streams a session keeps
	// resumable. Default 64.
	MaxFinishedStreams int
	// MaxBody bounds a POST body. Default DefaultMaxFrameSize.
	MaxBody int64
	// Retry is the reconnection delay sent to clients in the SSE retry
	// field. Default 1s.
	Retry time.Duration
	// WriteTimeout bounds each write to a client, so a reader that stopped
	// reading cannot hold a stream forever. Default 30s.
	WriteTimeout time.Duration
	// KeepAlive is how often an idle SSE stream gets a comment. Default
	// 25s, under the 30s and more that proxies and clients wait.
	KeepAlive time.Duration
	// IdleTimeout ends a session that has had no HTTP request open for
	// that long: clients that vanish without DELETE do not pile up.
	// Default 30 minutes.
	IdleTimeout time.Duration
	// ServeStateless, when set, serves protocol 2026-07-28 as well: it starts
	// a peer on the Conn of one request (see postModern), whose Recv ends
	// with ErrStreamClosed when the client cancels by closing the
	// response; Close on what it returns is called once answered.
	ServeStateless func(conn Conn) io.Closer
	// CheckParamHeaders, if set, checks a 2026-07-28 request's Mcp-Param
	// headers (by lower-case name, values decoded) against its body; an
	// error is answered with 400 and HeaderMismatch (-32020).
	CheckParamHeaders func(frame []byte, params map[string]string) error
	// Logger, if set, hears what the server ignores on purpose, such as
	// a notifications/cancelled POSTed under 2026-07-28.
	Logger *slog.Logger
}

// HTTPServer is the server side of the Streamable HTTP transport
// (protocols 2025-03-26 to 2025-11-25), an http.Handler for the MCP
// endpoint. Each MCP session gets its own Conn, on which Config.Serve
// runs a peer. See ServeHTTP for the rules it keeps.
type HTTPServer struct {
	cfg                              HTTPServerConfig
	maxEvents, maxBytes, maxFinished int

	mu       sync.Mutex
	sessions map[string]*httpSession
	closed   bool
	// closing counts peers being closed in the background; Close waits on
	// peersDone until it is 0. A count under mu, not a WaitGroup: a DELETE
	// or an idle timer may start one while Close waits.
	closing   int
	peersDone *sync.Cond
	// stop is closed by Close: 2026-07-28 requests in flight end.
	stop     chan struct{}
	stopOnce sync.Once
}

// NewHTTPServer returns a handler for the MCP endpoint.
func NewHTTPServer(cfg HTTPServerConfig) *HTTPServer {
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = 1000
	}
	if cfg.MaxStoredEvents <= 0 {
		cfg.MaxStoredEvents = 16384
	}
	if cfg.MaxStoredBytes <= 0 {
		cfg.MaxStoredBytes = 16 << 20
	}
	if cfg.MaxFinishedStreams <= 0 {
		cfg.MaxFinishedStreams = 64
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxFrameSize
	}
	if cfg.Retry <= 0 {
		cfg.Retry = time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = 25 * time.Second
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 30 * time.Minute
	}
	h := &HTTPServer{
		cfg:         cfg,
		maxEvents:   cfg.MaxStoredEvents,
		maxBytes:    cfg.MaxStoredBytes,
		maxFinished: cfg.MaxFinishedStreams,
		sessions:    map[string]*httpSession{},
		stop:        make(chan struct{}),
	}
	h.peersDone = sync.NewCond(&h.mu)
	return h
}

// ServeHTTP implements http.Handler. POST carries client messages (a
// request gets an SSE stream or a JSON body, anything else 202), GET opens
// the stream for server messages or resumes one with Last-Event-ID, DELETE
// ends the session. Every request but initialize needs the Mcp-Session-Id
// the initialize response carried: 400 without it, 404 when it names no
// live session.
func (h *HTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ok, why := checkOrigin(r, h.cfg.AllowRemote); !ok {
		httpError(w, http.StatusForbidden, why)
		return
	}
	if IsStatelessVersion(r.Header.Get(HeaderProtocolVersion)) && r.Method != http.MethodPost {
		// 2026-07-28 has no GET stream and no session to DELETE.
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, r.Method+" is not part of protocol "+r.Header.Get(HeaderProtocolVersion)+": every message is a POST")
		return
	}
	// No header means 2025-03-26, as the spec asks: spoken here too.
	// A POST outside a session with a version of neither era is answered
	// by the modern leg: UnsupportedProtocolVersion, with the request's id.
	if v := r.Header.Get(HeaderProtocolVersion); unknownVersion(v) &&
		!(r.Method == http.MethodPost && r.Header.Get(HeaderSessionID) == "" && h.cfg.ServeStateless != nil) {
		httpError(w, http.StatusBadRequest, "unsupported MCP-Protocol-Version "+v+"; this server speaks "+joinVersions())
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, r.Method+" is not part of the MCP endpoint; use POST, GET or DELETE")
	}
}

// session finds the session a request names, answering 400 or 404 itself
// when there is none.
func (h *HTTPServer) session(w http.ResponseWriter, r *http.Request) *httpSession {
	id := r.Header.Get(HeaderSessionID)
	if id == "" {
		httpError(w, http.StatusBadRequest, "missing Mcp-Session-Id header: send initialize first and then the session id its response carried")
		return nil
	}
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil {
		httpError(w, http.StatusNotFound, "no such session (it ended or never existed): initialize again for a new one")
		return nil
	}
	return s
}

// errServerFull and errServerClosed refuse a new session.
var (
	errServerFull   = errors.New("too many MCP sessions open on this server; end some with DELETE and try again")
	errServerClosed = errors.New("the server is shutting down")
)

// newSession creates a session with a fresh random id and starts its peer.
func (h *HTTPServer) newSession() (*httpSession, error) {
	var raw [16]byte
	_, _ = rand.Read(raw[:]) // crypto/rand never fails on supported platforms
	s := newHTTPSession(hex.EncodeToString(raw[:]), h)
	h.mu.Lock()
	full, closed := len(h.sessions) >= h.cfg.MaxSessions, h.closed
	h.mu.Unlock()
	switch {
	case closed:
		return nil, errServerClosed
	case full:
		return nil, errServerFull
	}
	s.peer = h.cfg.Serve(s.id, s)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		_ = s.Close()
		_ = s.peer.Close()
		return nil, errServerClosed
	}
	h.sessions[s.id] = s
	h.mu.Unlock()
	return s, nil
}

// forget drops a session from the table: its id gets 404 from now on.
func (h *HTTPServer) forget(id string) {
	h.mu.Lock()
	delete(h.sessions, id)
	h.mu.Unlock()
}

// delete ends the session a client is done with.
func (h *HTTPServer) delete(w http.ResponseWriter, r *http.Request) {
	s := h.session(w, r)
	if s == nil {
		return
	}
	h.end(s)
	w.WriteHeader(http.StatusOK)
}

// end closes a session's conn at once (its streams end, its id gets 404)
// and its peer in the background, which waits for handlers to return.
func (h *HTTPServer) end(s *httpSession) {
	_ = s.Close()
	h.mu.Lock()
	h.closing++
	h.mu.Unlock()
	go func() {
		if s.peer != nil {
			_ = s.peer.Close()
		}
		h.mu.Lock()
		h.closing--
		h.peersDone.Broadcast()
		h.mu.Unlock()
	}()
}

// Close ends every session and waits for their peers. New sessions are
// refused from now on; streams still open end.
func (h *HTTPServer) Close() error {
	h.stopOnce.Do(func() { close(h.stop) })
	h.mu.Lock()
	h.closed = true
	live := make([]*httpSession, 0, len(h.sessions))
	for _, s := range h.sessions {
		live = append(live, s)
	}
	h.mu.Unlock()
	for _, s := range live {
		h.end(s)
	}
	h.mu.Lock()
	for h.closing > 0 {
		h.peersDone.Wait()
	}
	h.mu.Unlock()
	return nil
}

// speaksPriming reports whether the client knows the priming event (an id
// and empty data, new in 2025-11-25): by its header or, since clients
// may send an older header than they negotiated, by its initialize.
func speaksPriming(r *http.Request, s *httpSession) bool {
	if r.Header.Get(HeaderProtocolVersion) >= "2025-11-25" {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version >= "2025-11-25"
}

func joinVersions() string {
	out := ""
	for i, v := range StreamableHTTPVersions {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}
