package transport

import (
	"errors"
	"fmt"
	"io"
	"sync"
)

// RequestStreamDropper is implemented by a Conn whose requests have
// resumable response streams of their own (Streamable HTTP under the 2025
// versions). DropRequestStream breaks the connection carrying request
// id's SSE stream as a network failure would: the request stays pending,
// and the transport resumes the stream with GET and Last-Event-ID as after
// any broken stream. It returns the event id the stream resumes from.
// mcpoke check uses it to see whether a server takes a dropped stream for
// a cancel, which the 2025 versions say it SHOULD NOT.
type RequestStreamDropper interface {
	DropRequestStream(id []byte) (lastEventID string, err error)
}

var (
	// ErrNoRequestStream: the request has no SSE response stream being
	// read now: it was answered, its answer is a JSON body, the transport
	// has no per-request streams, or it is between two reconnections.
	ErrNoRequestStream = errors.New("the request has no open SSE response stream")
	// ErrNotResumable: the request's stream has carried no event id yet,
	// so it could not be resumed; it is left alone.
	ErrNotResumable = errors.New("the request's stream has no event id to resume from")
)

// streamLive is what DropRequestStream needs of a stream while it is
// read: the body of the connection carrying it, and the last event id.
type streamLive struct {
	mu     sync.Mutex
	body   io.Closer
	lastID string
	// dropped: DropRequestStream closed body, not the network.
	dropped bool
}

// reading records the body a stream is read from now (nil: none), and the
// event id it resumes after.
func (l *streamLive) reading(body io.Reader, lastID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.body, _ = body.(io.Closer)
	l.lastID = lastID
	l.dropped = false
}

// wasDropped says whether DropRequestStream ended the read that failed.
func (l *streamLive) wasDropped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}

// seen records the stream's last event id so far.
func (l *streamLive) seen(lastID string) {
	l.mu.Lock()
	l.lastID = lastID
	l.mu.Unlock()
}

// DropRequestStream implements RequestStreamDropper.
func (h *HTTP) DropRequestStream(id []byte) (string, error) {
	if h.fellBack.Load() != nil {
		return "", ErrNoRequestStream
	}
	h.mu.Lock()
	st := h.streams[idKey(id)]
	h.mu.Unlock()
	if st == nil || st.answered.Load() {
		return "", ErrNoRequestStream
	}
	st.live.mu.Lock()
	defer st.live.mu.Unlock()
	switch {
	case st.live.body == nil:
		return "", ErrNoRequestStream
	case st.live.lastID == "":
		return "", ErrNotResumable
	}
	// Closing the body ends the connection under the reader, which then
	// resumes: the request's context is untouched.
	st.live.body.Close()
	st.live.body, st.live.dropped = nil, true
	h.q.fact(fmt.Sprintf("stream of request %s dropped by mcpoke, as a network failure would, after event id %q", idKey(id), st.live.lastID))
	return st.live.lastID, nil
}

// DropRequestStream forwards to the wrapped transport when its requests
// have streams that can be dropped.
func (t *Tap) DropRequestStream(id []byte) (string, error) {
	if d, ok := t.Conn.(RequestStreamDropper); ok {
		return d.DropRequestStream(id)
	}
	return "", ErrNoRequestStream
}
