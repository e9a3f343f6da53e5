package transport

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Authorizer lets an HTTP connection carry credentials it knows nothing
// about: it asks for the Authorization header of each request and hands
// over a 401 or 403 answer, so that the authorizer can log in (OAuth,
// package internal/auth) and the request go again in the same session.
type Authorizer interface {
	// Authorization returns the Authorization header for the next
	// request, or "" for none.
	Authorization(ctx context.Context) string
	// Challenged is given a 401 or 403 answer to a request that carried
	// sent as its Authorization header; it must not read the body. It
	// returns true when the request should be sent again.
	Challenged(ctx context.Context, sent string, resp *http.Response) (retry bool, err error)
}

// maxAuthRetries bounds how often one POST is sent again after a
// challenge, whatever the authorizer says.
const maxAuthRetries = 3

// authorize sets req's Authorization header from the authorizer, if any.
func authorize(a Authorizer, req *http.Request) {
	if a == nil {
		return
	}
	if v := a.Authorization(req.Context()); v != "" {
		req.Header.Set("Authorization", v)
	}
}

// retryAuthorized answers a 401 or 403 to a POST: it lets the authorizer
// log in and sends o again, as often as it asks, up to
// maxAuthRetries. It returns the last answer (nil when a resend failed,
// which it reports) and whether the caller should go on reading it.
func (h *HTTP) retryAuthorized(ctx context.Context, st *requestStream, label string, o Outgoing, resp *http.Response, cancel context.CancelFunc, timeout time.Duration) *http.Response {
	for try := 0; h.opts.Auth != nil && try < maxAuthRetries; try++ {
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			return resp
		}
		h.q.fact(fmt.Sprintf("POST %s → %s; authorizing", label, resp.Status))
		retry, err := h.opts.Auth.Challenged(ctx, resp.Request.Header.Get("Authorization"), resp)
		if err != nil {
			h.q.fact(fmt.Sprintf("authorization failed: %v", err))
			if st != nil {
				io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
				resp.Body.Close()
				h.q.requestError(st.id, fmt.Sprintf("the server answered the POST of %s with HTTP %s and authorization failed: %v", label, resp.Status, err))
				h.forget(st)
				return nil
			}
			return resp
		}
		if !retry {
			return resp
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		// A login may have taken a person minutes, while the server closed
		// the idle connections it kept (Node after 5 s): the POST goes on
		// a new one, since Go's client does not send a POST again when
		// the connection it reused turns out reset.
		h.opts.Client.CloseIdleConnections()
		req, err := h.newPost(ctx, o)
		if err == nil {
			resp, err = h.do(req, cancel, timeout)
		}
		if err != nil {
			h.postFailed(st, label, err)
			return nil
		}
	}
	return resp
}
