package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// handlePost reads the answer to one POST: 202, a JSON body or an SSE
// stream, and fails the request it carried when no answer can come.
func (h *HTTP) handlePost(ctx context.Context, st *requestStream, label string, frame []byte, resp *http.Response) {
	defer resp.Body.Close()
	defer h.forget(st)
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	h.mu.Lock()
	sentSID := h.sessionID
	var badSID error
	if st != nil && st.method == "initialize" && resp.StatusCode/100 == 2 {
		if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
			if badSID = checkSessionID(sid); badSID == nil {
				h.sessionID = sid
			}
		}
	}
	newSID := h.sessionID != sentSID
	h.mu.Unlock()
	fact := fmt.Sprintf("POST %s → %s", label, resp.Status)
	if st != nil && st.headers != "" {
		fact = fmt.Sprintf("POST %s (%s) → %s", label, st.headers, resp.Status)
	}
	if ctype != "" {
		fact += " " + ctype
	}
	if newSID {
		fact += " session " + resp.Header.Get("Mcp-Session-Id")
	}
	h.q.fact(fact)
	if badSID != nil {
		// Never kept, never sent back: the session cannot go on.
		h.q.requestError(st.id, badSID.Error())
		return
	}

	var body []byte
	if resp.StatusCode/100 != 2 {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, errorBodyMax))
	}
	probe := st != nil && st.method == "initialize" && h.opts.FallbackToSSE && sentSID == ""
	switch {
	case resp.StatusCode == http.StatusNotFound && sentSID != "":
		h.q.fail(&SessionExpiredError{SessionID: sentSID})
		return
	case resp.StatusCode/100 != 2 && h.errorBodyAnswers(st, body, probe):
		return
	case probe && (resp.StatusCode == 400 || resp.StatusCode == 404 || resp.StatusCode == 405):
		h.fallBack(st, frame, resp.Status)
		return
	case resp.StatusCode/100 != 2:
		h.refused(st, label, resp.Status, body)
		return
	case resp.StatusCode == http.StatusAccepted || st == nil:
		if st != nil {
			h.q.requestError(st.id, fmt.Sprintf("the server answered the POST of request %s with %s and no body: no response can come", idKey(st.id), resp.Status))
		}
		return
	}
	switch ctype {
	case "application/json":
		h.readJSON(st, resp)
	case "text/event-stream":
		h.readStream(ctx, st, resp.Body, "POST "+label)
		h.resume(ctx, st)
	default:
		h.q.requestError(st.id, fmt.Sprintf("the server answered request %s with Content-Type %q; expected application/json or text/event-stream",
			idKey(st.id), resp.Header.Get("Content-Type")))
	}
}

// refused reports a non-2xx answer: the request fails with the status and
// the start of the body, which often says why.
func (h *HTTP) refused(st *requestStream, label, status string, body []byte) {
	why := fmt.Sprintf("the server answered the POST of %s with HTTP %s", label, status)
	if b := strings.TrimSpace(string(body[:min(len(body), 300)])); b != "" {
		why += ": " + b
	}
	if st != nil {
		h.q.requestError(st.id, why)
		return
	}
	h.q.fact(why)
}

// readJSON delivers a JSON body as one frame (or batch), bounded.
func (h *HTTP) readJSON(st *requestStream, resp *http.Response) {
	max := h.opts.MaxFrameSize
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
	if len(body) > max {
		size := max + 1
		if resp.ContentLength > int64(max) {
			size = int(min(resp.ContentLength, int64(^uint(0)>>1)))
		}
		h.q.push(Message{Kind: wire.KindOversize, Data: body[:oversizePreview], Size: size})
		h.q.requestError(st.id, fmt.Sprintf("the JSON response to request %s is over the limit of %d bytes (Content-Length %d); skipped",
			idKey(st.id), max, resp.ContentLength))
		return
	}
	if err != nil {
		if st.stateless {
			h.lost(context.Background(), st, fmt.Sprintf("reading its JSON response failed: %v", err))
			return
		}
		h.q.requestError(st.id, fmt.Sprintf("reading the JSON response to request %s: %v", idKey(st.id), err))
		return
	}
	h.deliver(st, body)
	if !st.answered.Load() {
		h.q.requestError(st.id, fmt.Sprintf("the JSON body the server sent for request %s does not answer it", idKey(st.id)))
	}
}

// deliver queues one inbound frame, noting the answer to st and the
// version the server chose in initialize.
func (h *HTTP) deliver(st *requestStream, data []byte) {
	kind, why := classify(data)
	if kind == wire.KindFrame {
		for _, e := range peekEnvelopes(data) {
			if !e.isResponse() {
				continue
			}
			key := idKey(e.ID)
			if st != nil && key == idKey(st.id) {
				st.answered.Store(true)
			}
			h.mu.Lock()
			if key == h.initID && h.version == "" && e.Result != nil {
				h.version = negotiatedVersion(e.Result)
			}
			h.mu.Unlock()
		}
	}
	m := Message{Kind: kind, Data: data, Why: why, Valid: kind == wire.KindFrame}
	if st != nil && kind == wire.KindFrame {
		m.ID = st.id // it came on st's own stream: related to st
	}
	h.q.push(m)
}

// readStream delivers each SSE event of body as a frame until the stream
// ends, the response to st arrived and the server closed it, or ctx ends.
// It keeps st's last event id and retry for resume.
func (h *HTTP) readStream(ctx context.Context, st *requestStream, body io.Reader, what string) (events int, lastID string, retry time.Duration, err error) {
	sr := newSSEReader(body, h.opts.MaxFrameSize)
	defer sr.release()
	if st != nil {
		lastID, retry = st.lastID, st.retry
		st.live.reading(body, lastID)
		defer st.live.reading(nil, "")
	}
	for {
		ev, err := sr.next()
		if ev.RetrySet {
			retry = time.Duration(ev.Retry) * time.Millisecond
		}
		if f := sseFact(ev); f != "" {
			h.q.fact(what + ": " + f)
		}
		if err != nil {
			if st != nil {
				st.lastID, st.retry = lastID, retry
			}
			why := "ended"
			switch {
			case ctx.Err() != nil && st != nil && st.byUs.Load():
				why = "closed by mcpoke"
			case ctx.Err() != nil:
				why = "closed"
			case errors.Is(err, errSSETruncated):
				why = "ended in the middle of an event"
			case st != nil && st.live.wasDropped():
				why = "dropped by mcpoke"
			case err != io.EOF:
				why = "broke: " + err.Error()
			}
			if ctx.Err() == nil || (st != nil && st.byUs.Load()) {
				h.q.fact(what + ": stream " + why)
			}
			return events, lastID, retry, err
		}
		lastID = ev.LastID
		if st != nil {
			st.live.seen(lastID)
		}
		if !ev.Dispatch {
			continue
		}
		events++
		switch {
		case ev.Oversize:
			h.q.push(Message{Kind: wire.KindOversize, Data: ev.Data[:min(len(ev.Data), oversizePreview)], Size: ev.Size})
			if st != nil {
				st.skipped++
			}
		case len(ev.Data) == 0:
			// A priming event (an id and empty data) so that we can resume.
		case ev.Type != "" && ev.Type != "message":
			h.q.push(Message{Kind: wire.KindNoise, Data: ev.Data})
		default:
			h.deliver(st, ev.Data)
		}
	}
}

// sseFact describes what of an SSE block the wire log shows besides its
// data: id, type, retry, comments.
func sseFact(ev sseEvent) string {
	var parts []string
	if ev.IDSet {
		parts = append(parts, fmt.Sprintf("event id %q", ev.LastID))
	}
	if ev.Type != "" && ev.Type != "message" {
		parts = append(parts, fmt.Sprintf("event %q", ev.Type))
	}
	if ev.RetrySet {
		parts = append(parts, fmt.Sprintf("retry %dms", ev.Retry))
	}
	for _, c := range ev.Comments {
		parts = append(parts, fmt.Sprintf("comment %q", c))
	}
	if n := ev.CommentCount - len(ev.Comments); n > 0 {
		parts = append(parts, fmt.Sprintf("%d more comments", n))
	}
	if ev.Oversize {
		parts = append(parts, fmt.Sprintf("event of %d bytes over the limit, skipped", ev.Size))
	}
	return strings.Join(parts, ", ")
}

// resume follows a request's stream after it dropped before the answer:
// with GET and Last-Event-ID after the server's retry delay, a bounded
// number of times; else the request fails with the reason.
func (h *HTTP) resume(ctx context.Context, st *requestStream) {
	if st.stateless {
		h.lost(ctx, st, "its response stream ended before the answer")
		return
	}
	fails := 0
	for !st.answered.Load() && ctx.Err() == nil {
		if st.lastID == "" {
			why := fmt.Sprintf("the server ended the response stream of request %s before answering it, with no event id to resume from", idKey(st.id))
			if st.skipped > 0 {
				why += fmt.Sprintf(" (%d events over the size limit were skipped)", st.skipped)
			}
			h.q.requestError(st.id, why)
			return
		}
		if fails >= h.opts.MaxReconnects {
			h.q.requestError(st.id, fmt.Sprintf("the response stream of request %s dropped and %d reconnections with Last-Event-ID brought nothing", idKey(st.id), fails))
			return
		}
		fails++
		events, err := h.reconnect(ctx, st.lastID, st.retry, fmt.Sprintf("request %s", idKey(st.id)), fails, st)
		if err != nil {
			var refused *refusedError
			if errors.As(err, &refused) {
				h.q.requestError(st.id, fmt.Sprintf("could not resume the stream of request %s: %v", idKey(st.id), err))
				return
			}
		}
		if events > 0 {
			fails = 0
		}
	}
}

// refusedError is a non-2xx answer to a GET.
type refusedError struct{ status string }

func (e *refusedError) Error() string { return "the server answered the GET with HTTP " + e.status }

// reconnect waits the retry delay, then GETs the stream from lastID
// (empty: a fresh GET stream) and reads it to its end.
func (h *HTTP) reconnect(ctx context.Context, lastID string, retry time.Duration, what string, attempt int, st *requestStream) (int, error) {
	if retry <= 0 {
		retry = h.opts.DefaultRetry
	}
	h.q.fact(fmt.Sprintf("%s: reconnecting in %s with Last-Event-ID %q (attempt %d of %d)", what, retry, lastID, attempt, h.opts.MaxReconnects))
	t := time.NewTimer(retry)
	select {
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
		return 0, ctx.Err()
	}
	resp, err := h.get(ctx, lastID)
	if err != nil {
		h.q.fact(fmt.Sprintf("%s: GET failed: %v", what, netError(err)))
		return 0, err
	}
	defer resp.Body.Close()
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	h.q.fact(fmt.Sprintf("%s: GET Last-Event-ID %q → %s %s", what, lastID, resp.Status, ctype))
	if resp.StatusCode == http.StatusNotFound && h.SessionID() != "" {
		h.q.fail(&SessionExpiredError{SessionID: h.SessionID()})
		return 0, &refusedError{resp.Status}
	}
	if resp.StatusCode/100 != 2 {
		return 0, &refusedError{resp.Status}
	}
	if ctype != "text/event-stream" {
		return 0, &refusedError{resp.Status + " with Content-Type " + resp.Header.Get("Content-Type")}
	}
	n, _, _, err := h.readStream(ctx, st, resp.Body, what)
	return n, err
}

// get opens a GET stream, resuming from lastID when it is set.
func (h *HTTP) get(ctx context.Context, lastID string) (*http.Response, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.opts.URL, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	h.setHeaders(req, true)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := h.do(req, cancel, h.opts.StreamHeaderTimeout)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelOnClose releases a request's context with its body.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// openGetStream opens the stream for what the server sends on its own,
// once, after initialize. 400, 404 and 405 mean the server has none. The
// channel is closed once the GET has its answer's headers (or failed).
func (h *HTTP) openGetStream() <-chan struct{} {
	ready := make(chan struct{})
	h.mu.Lock()
	if h.getOpen || h.closed {
		h.mu.Unlock()
		close(ready)
		return ready
	}
	h.getOpen = true
	h.mu.Unlock()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.runGetStream(ready)
	}()
	return ready
}

func (h *HTTP) runGetStream(ready chan struct{}) {
	ctx := h.ctx
	resp, err := h.get(ctx, "")
	close(ready)
	if err != nil {
		if ctx.Err() == nil {
			h.q.fact(fmt.Sprintf("GET stream: %v", netError(err)))
		}
		return
	}
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	h.q.fact(fmt.Sprintf("GET stream → %s %s", resp.Status, ctype))
	if resp.StatusCode/100 != 2 || ctype != "text/event-stream" {
		resp.Body.Close()
		return // no stream for server messages: not fatal
	}
	st := &requestStream{}
	h.readStream(ctx, st, resp.Body, "GET stream")
	resp.Body.Close()
	fails := 0
	for ctx.Err() == nil && fails < h.opts.MaxReconnects && (st.lastID != "" || st.retry > 0) {
		fails++
		n, err := h.reconnect(ctx, st.lastID, st.retry, "GET stream", fails, st)
		var refused *refusedError
		if errors.As(err, &refused) {
			return
		}
		if n > 0 {
			fails = 0
		}
	}
}
