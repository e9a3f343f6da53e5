package transport

import (
	"errors"
	"mime"
	"net/http"
	"strings"
)

// post takes one POST of client messages: a request opens a stream for
// its answers, notifications and responses get 202 Accepted.
func (h *HTTPServer) post(w http.ResponseWriter, r *http.Request) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json, not "+quoteOrNone(r.Header.Get("Content-Type")))
		return
	}
	sse, jsonOK := accepts(r.Header.Get("Accept"))
	if !sse && !jsonOK {
		httpError(w, http.StatusNotAcceptable, "Accept must list application/json and text/event-stream, not "+quoteOrNone(r.Header.Get("Accept")))
		return
	}
	body, err := readBody(w, r, h.cfg.MaxBody)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpError(w, http.StatusRequestEntityTooLarge, "body over the server's limit of "+itoa(h.cfg.MaxBody)+" bytes")
			return
		}
		httpError(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	msgs, batch, err := splitBatch(body)
	if err != nil {
		httpRPCError(w, http.StatusBadRequest, codeParseError, "parse error: "+err.Error())
		return
	}
	if isStatelessPost(r, msgs) {
		h.postStateless(w, r, msgs, batch)
		return
	}
	routes := make([]routing, len(msgs))
	var requests []routing
	initialize := false
	for i, m := range msgs {
		e, err := parseRouting(m)
		if err != nil {
			httpRPCError(w, http.StatusBadRequest, codeInvalidRequest, "invalid request: "+err.Error())
			return
		}
		if e.isRequest() {
			if !validRequestID(e.id) {
				httpRPCError(w, http.StatusBadRequest, codeInvalidRequest, "invalid request id "+e.id+": use a string or a number")
				return
			}
			requests = append(requests, e)
			initialize = initialize || e.method == "initialize"
		}
		routes[i] = e
	}
	if initialize && len(msgs) > 1 {
		httpRPCError(w, http.StatusBadRequest, codeInvalidRequest, "initialize must be sent alone, not in a batch")
		return
	}

	var s *httpSession
	if initialize && r.Header.Get(HeaderSessionID) == "" {
		if s, err = h.newSession(); err != nil {
			httpError(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		s.mu.Lock()
		s.version = routes[0].version
		s.mu.Unlock()
		w.Header().Set(HeaderSessionID, s.id)
	} else if s = h.session(w, r); s == nil {
		return
	}
	s.enter()
	defer s.leave()

	for _, e := range routes {
		if e.cancels != "" {
			s.noteCancel(e.cancels)
		}
	}
	if len(requests) == 0 {
		for _, m := range msgs {
			if !s.deliver(m, r.Context().Done()) {
				httpError(w, http.StatusNotFound, "the session ended before the message was taken")
				return
			}
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}

	st, ok := s.openStream(requests, !sse)
	if !ok {
		httpRPCError(w, http.StatusBadRequest, codeInvalidRequest, "a request id of this POST is already in flight in this session; use a new id")
		return
	}
	for _, m := range msgs {
		if !s.deliver(m, r.Context().Done()) {
			s.dropStream(st)
			httpError(w, http.StatusNotFound, "the session ended before the request was taken")
			return
		}
	}
	if sse {
		h.streamEvents(w, r, s, st, 0)
		return
	}
	h.answerJSON(w, r, s, st, batch)
}

// answerJSON waits for every response of a POST and writes them as one
// JSON body (an array for a batch). A client that leaves first loses
// them; its requests still run.
func (h *HTTPServer) answerJSON(w http.ResponseWriter, r *http.Request, s *httpSession, st *eventStream, batch bool) {
	var responses [][]byte
	for {
		s.mu.Lock()
		complete, changed := st.complete, st.changed
		if complete {
			for _, e := range st.events {
				if e.response {
					responses = append(responses, e.data)
				}
			}
		}
		s.mu.Unlock()
		if complete {
			break
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		case <-s.done:
			httpError(w, http.StatusNotFound, "the session ended before the response")
			return
		}
	}
	var out []byte
	if batch {
		out = append(out, '[')
		for i, resp := range responses {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, resp...)
		}
		out = append(out, ']')
	} else if len(responses) > 0 {
		out = responses[0]
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// accepts reads an Accept header: may the answer be an SSE stream, a JSON
// body? No header means anything goes.
func accepts(header string) (sse, json bool) {
	if strings.TrimSpace(header) == "" {
		return true, true
	}
	for part := range strings.SplitSeq(header, ",") {
		mt, _, _ := strings.Cut(part, ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "text/event-stream":
			sse = true
		case "application/json":
			json = true
		case "*/*":
			sse, json = true, true
		case "text/*":
			sse = true
		case "application/*":
			json = true
		}
	}
	return sse, json
}

func quoteOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return `"` + s + `"`
}
