package transport

import "fmt"

// fallBack switches to the legacy HTTP+SSE transport at the same URL after
// the server refused the POST of initialize with status (the spec's
// backwards-compatibility probe), then sends initialize again there.
func (h *HTTP) fallBack(st *requestStream, frame []byte, status string) {
	h.q.fact(fmt.Sprintf("POST initialize refused with %s: trying the legacy HTTP+SSE transport (GET %s)", status, RedactURL(h.opts.URL)))
	l, err := dialSSE(h.opts, h.q)
	if err != nil {
		h.q.requestError(st.id, fmt.Sprintf("the server refused the POST of initialize (%s) and is no legacy SSE server either: %v", status, err))
		return
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		l.Close()
		return
	}
	h.fellBack.Store(l)
	if err := l.Send(frame); err != nil {
		h.q.requestError(st.id, fmt.Sprintf("sending initialize over legacy SSE: %v", err))
	}
}
