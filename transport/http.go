package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of HTTPOptions.
const (
	// DefaultStreamHeaderTimeout bounds the wait for the headers of a GET,
	// a DELETE and the POST of a notification or response. A request's
	// POST has no such bound: the session's request timeout governs it,
	// and a server may hold the headers until its first progress.
	DefaultStreamHeaderTimeout = 30 * time.Second
	// DefaultDeleteTimeout bounds the DELETE that ends a session on Close,
	// so that quitting never hangs on a server that does not answer.
	DefaultDeleteTimeout = 5 * time.Second
	// DefaultRetry is the reconnection delay when a server gave no retry
	// field (WHATWG leaves it to the client; a second is common).
	DefaultRetry = time.Second
	// DefaultMaxReconnects bounds consecutive reconnections of one stream
	// that bring nothing.
	DefaultMaxReconnects = 5
	// getStreamWait bounds how long Send of notifications/initialized
	// waits for the GET stream's headers.
	getStreamWait = 2 * time.Second
)

// HTTPOptions configure a Streamable HTTP or legacy SSE connection.
type HTTPOptions struct {
	// URL is the MCP endpoint (Streamable HTTP) or the SSE endpoint
	// (legacy).
	URL string
	// Header is sent with every request (e.g. Authorization); credential
	// values never reach the wire log.
	Header http.Header
	// Client makes the requests; nil means NewHTTPClient's defaults.
	Client *http.Client
	// ConnectTimeout bounds the wait for a legacy server's endpoint
	// event; 0 means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// RequestHeaderTimeout bounds the wait for the headers answering a
	// request's POST; 0 means no bound.
	RequestHeaderTimeout time.Duration
	// StreamHeaderTimeout: see DefaultStreamHeaderTimeout.
	StreamHeaderTimeout time.Duration
	// DeleteTimeout: see DefaultDeleteTimeout.
	DeleteTimeout time.Duration
	// MaxFrameSize bounds one inbound message (a JSON body or an SSE
	// event's data); 0 means DefaultMaxFrameSize.
	MaxFrameSize int
	// DefaultRetry and MaxReconnects tune resumption; 0 means the
	// package defaults.
	DefaultRetry  time.Duration
	MaxReconnects int
	// FallbackToSSE: when the server refuses the POST of initialize with
	// 400, 404 or 405, try the legacy HTTP+SSE transport at the same URL
	// (the spec's backwards-compatibility probe).
	FallbackToSSE bool
	// Auth, if set, gives every request its Authorization header and
	// answers 401 and 403 (see Authorizer).
	Auth Authorizer
}

func (o *HTTPOptions) defaults() error {
	if o.Client == nil {
		c, err := NewHTTPClient(HTTPClientOptions{ConnectTimeout: o.ConnectTimeout})
		if err != nil {
			return err
		}
		o.Client = c
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.StreamHeaderTimeout <= 0 {
		o.StreamHeaderTimeout = DefaultStreamHeaderTimeout
	}
	if o.DeleteTimeout <= 0 {
		o.DeleteTimeout = DefaultDeleteTimeout
	}
	if o.MaxFrameSize <= 0 {
		o.MaxFrameSize = DefaultMaxFrameSize
	}
	if o.DefaultRetry <= 0 {
		o.DefaultRetry = DefaultRetry
	}
	if o.MaxReconnects <= 0 {
		o.MaxReconnects = DefaultMaxReconnects
	}
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL", RedactURL(o.URL))
	}
	return nil
}

// SessionExpiredError means the server answered 404 to a request that carried
// our session id, which the spec makes the sign of an expired session.
type SessionExpiredError struct{ SessionID string }

func (e *SessionExpiredError) Error() string {
	return fmt.Sprintf("server says session %s expired (HTTP 404); reconnect to start a new one", e.SessionID)
}

// Is makes errors.Is(err, ErrSessionExpired) true.
func (e *SessionExpiredError) Is(target error) bool { return target == ErrSessionExpired }

// ErrSessionExpired matches a *SessionExpiredError.
var ErrSessionExpired = errors.New("server says the session expired (HTTP 404); reconnect")

// HTTP is a Streamable HTTP connection (protocol 2025-03-26 to 2025-11-25):
// every frame is a POST, answered by 202, a JSON body or an SSE stream;
// a GET stream carries what the server sends on its own. Each request's
// response stream is its own, so CloseRequestStream can drop it.
//
// Send returns once the POST's body is written: a goroutine per POST
// reads the answer into the queue Recv takes from.
type HTTP struct {
	opts HTTPOptions
	url  *url.URL
	q    *inbox

	ctx    context.Context // ends every request on Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	sessionID string
	version   string // negotiated, from the initialize response
	initID    string // idKey of our initialize request
	streams   map[string]*requestStream
	getOpen   bool
	closed    bool

	// fellBack is set when FallbackToSSE switched to the old transport.
	fellBack atomic.Pointer[HTTPSSE]
}

// requestStream is one request's response channel: its POST, then any GET
// that resumes it.
type requestStream struct {
	id       []byte
	method   string
	cancel   context.CancelFunc
	byUs     atomic.Bool // CloseRequestStream closed it
	live     streamLive  // the connection being read, for DropRequestStream
	answered atomic.Bool
	lastID   string        // the last SSE event id, to resume from
	retry    time.Duration // the server's retry, or 0
	skipped  int           // oversize events skipped

	// stateless: the request is of protocol 2026-07-28 or later, whose
	// streams cannot be resumed: a broken one loses the request.
	stateless bool
	// headers lists what its POST mirrored in headers, for the wire log.
	headers string
}

// DialHTTP returns a Streamable HTTP connection to opts.URL. Nothing is
// sent until the first Send (initialize).
func DialHTTP(opts HTTPOptions) (*HTTP, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	u, _ := url.Parse(opts.URL)
	ctx, cancel := context.WithCancel(context.Background())
	return &HTTP{opts: opts, url: u, q: newInbox(), ctx: ctx, cancel: cancel, streams: map[string]*requestStream{}}, nil
}

// Kind names the transport in use: "http", or "sse" after a fallback to
// the legacy transport.
func (h *HTTP) Kind() string {
	if h.fellBack.Load() != nil {
		return "sse"
	}
	return "http"
}

// SessionID is the Mcp-Session-Id the server gave, if any.
func (h *HTTP) SessionID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessionID
}

// Recv implements Conn.
func (h *HTTP) Recv() (Message, error) { return h.q.recv() }

// Send implements Conn: it POSTs frame, read for what it is, and returns
// once the body was written, or at once with the error when the server
// cannot be reached.
func (h *HTTP) Send(frame []byte) error {
	_, err := h.SendOutgoing(Outgoing{Frame: frame})
	return err
}

// SendOutgoing implements Sender: Send, taking what the frame is (its id,
// method and the headers its era mirrors) from o instead of parsing it.
// A frame sent without them is read once here. It returns no time: the
// HTTP transport does not stamp what it sends (a Tap does).
func (h *HTTP) SendOutgoing(o Outgoing) (time.Time, error) {
	if l := h.fellBack.Load(); l != nil {
		return time.Time{}, l.Send(o.Frame)
	}
	batch := 1
	if !o.described() {
		o, batch = readOutgoing(o.Frame)
	}
	frame := o.Frame
	request := o.Method != "" && (o.ID != "" && o.ID != "null")
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return time.Time{}, ErrClosed
	}
	var st *requestStream
	label := "message"
	switch {
	case batch > 1:
		label = fmt.Sprintf("batch of %d", batch)
	case request:
		label = o.Method + " id " + o.ID
		if o.Method == "initialize" {
			h.initID = o.ID
		}
	case o.Method != "":
		label = o.Method
	case (o.ID != "" && o.ID != "null"):
		label = "response id " + o.ID
	}
	ctx, cancel := context.WithCancel(h.ctx)
	if request {
		st = &requestStream{id: []byte(o.ID), method: o.Method, cancel: cancel,
			stateless: o.Mirror != nil, headers: o.Mirror.describe()}
		h.streams[idKey(st.id)] = st
	} else {
		o.Mirror = nil // only a request's POST mirrors its body
	}
	h.mu.Unlock()

	postCtx := ctx
	req, err := h.newPost(ctx, o)
	if err != nil {
		cancel()
		h.forget(st)
		return time.Time{}, err
	}

	// Send waits for the body to be written, not for the answer: the Tap
	// serialises Sends, and a server may hold its headers for long.
	sent := make(chan error, 2)
	var wrote atomic.Bool
	var once sync.Once
	trace := &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
		once.Do(func() {
			if i.Err == nil {
				wrote.Store(true)
			}
			sent <- i.Err
		})
	}}
	req = req.WithContext(httptrace.WithClientTrace(ctx, trace))
	headerTimeout := h.opts.StreamHeaderTimeout
	if st != nil {
		headerTimeout = h.opts.RequestHeaderTimeout
	}
	initialized := o.Method == "notifications/initialized"
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer cancel()
		resp, err := h.do(req, cancel, headerTimeout)
		if err != nil {
			if !wrote.Load() {
				sent <- err
				h.forget(st)
				return
			}
			h.postFailed(st, label, err)
			return
		}
		if resp = h.retryAuthorized(postCtx, st, label, o, resp, cancel, headerTimeout); resp == nil {
			return
		}
		h.handlePost(ctx, st, label, frame, resp)
	}()
	select {
	case err := <-sent:
		if err != nil {
			return time.Time{}, fmt.Errorf("POST %s to %s: %w", label, RedactURL(h.opts.URL), netError(err))
		}
		if initialized {
			// The GET stream is open (headers in) before the first request
			// goes: a server may send that request's answer there, and
			// tells a resumption from a first GET by that order.
			select {
			case <-h.openGetStream():
			case <-time.After(getStreamWait):
			}
		}
		return time.Time{}, nil
	case <-h.ctx.Done():
		return time.Time{}, ErrClosed
	}
}

// newPost makes the POST that carries o's frame, with the headers its
// era mirrors (Mcp-Method, Mcp-Name, Mcp-Param-*) when it has them.
func (h *HTTP) newPost(ctx context.Context, o Outgoing) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.opts.URL, bytes.NewReader(o.Frame))
	if err != nil {
		return nil, err
	}
	h.setHeaders(req, true)
	o.Mirror.apply(req.Header, o.Method)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return req, nil
}

// do sends req, giving up when its headers take longer than timeout (0:
// no limit). The body is read after do returns, with no limit.
func (h *HTTP) do(req *http.Request, cancel context.CancelFunc, timeout time.Duration) (*http.Response, error) {
	var timedOut atomic.Bool
	if timeout > 0 {
		t := time.AfterFunc(timeout, func() { timedOut.Store(true); cancel() })
		defer t.Stop()
	}
	resp, err := h.opts.Client.Do(req)
	if err != nil && timedOut.Load() {
		return nil, fmt.Errorf("no response headers within %s", timeout)
	}
	return resp, err
}

// setHeaders adds the user's headers, then the session's: a user cannot
// override Mcp-Session-Id by accident.
func (h *HTTP) setHeaders(req *http.Request, withVersion bool) {
	for k, vs := range h.opts.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	h.mu.Lock()
	sid, version := h.sessionID, h.version
	h.mu.Unlock()
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if version != "" && withVersion {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	authorize(h.opts.Auth, req)
}

// forget drops a request's stream from the table.
func (h *HTTP) forget(st *requestStream) {
	if st == nil {
		return
	}
	h.mu.Lock()
	if h.streams[idKey(st.id)] == st {
		delete(h.streams, idKey(st.id))
	}
	h.mu.Unlock()
}

// postFailed reports a POST whose body was written but that got no
// answer: the request it carried fails at once.
func (h *HTTP) postFailed(st *requestStream, label string, err error) {
	defer h.forget(st)
	if h.ctx.Err() != nil {
		return // our Close
	}
	if st != nil && st.byUs.Load() {
		return
	}
	msg := fmt.Sprintf("POST %s failed after it was sent: %v", label, netError(err))
	if st != nil {
		h.q.requestError(st.id, msg)
		return
	}
	h.q.fact(msg)
}

// CloseRequestStream implements RequestStreamCloser: it drops the
// response stream of request id, if it is still open. Under 2025 versions
// that is not a cancellation: the server may go on.
func (h *HTTP) CloseRequestStream(id []byte) (bool, error) {
	if l := h.fellBack.Load(); l != nil {
		return false, nil
	}
	h.mu.Lock()
	st := h.streams[idKey(id)]
	h.mu.Unlock()
	if st == nil || st.answered.Load() {
		return false, nil
	}
	st.byUs.Store(true)
	st.cancel()
	h.q.fact(fmt.Sprintf("stream of request %s closed by mcpoke", idKey(id)))
	return true, nil
}

// Close implements Conn: it ends every stream, DELETEs the session (if
// the server gave one) and releases the connection pool.
func (h *HTTP) Close() error {
	if l := h.fellBack.Load(); l != nil {
		l.Close()
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	sid := h.sessionID
	h.mu.Unlock()
	if sid != "" {
		h.deleteSession(sid)
	}
	h.cancel()
	h.q.close()
	h.wg.Wait()
	h.opts.Client.CloseIdleConnections()
	return nil
}

// deleteSession tells the server we are done with the session (a 405
// means it does not allow that: fine).
func (h *HTTP) deleteSession(sid string) {
	ctx, cancel := context.WithTimeout(h.ctx, h.opts.DeleteTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, h.opts.URL, nil)
	if err != nil {
		return
	}
	h.setHeaders(req, true)
	resp, err := h.opts.Client.Do(req)
	if err != nil {
		h.q.tryFact(fmt.Sprintf("DELETE session %s failed: %v", sid, netError(err)))
		return
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	h.q.tryFact(fmt.Sprintf("DELETE session %s → %s", sid, resp.Status))
}
