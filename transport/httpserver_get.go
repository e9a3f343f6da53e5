package transport

import (
	"net/http"
	"time"
)

// get opens the session's stream for server messages, or, with
// Last-Event-ID, resumes the stream that event was on from just after it:
// a response still pending arrives on the resumed stream.
func (h *HTTPServer) get(w http.ResponseWriter, r *http.Request) {
	if sse, _ := accepts(r.Header.Get("Accept")); !sse {
		httpError(w, http.StatusNotAcceptable, "Accept must list text/event-stream for the GET stream, not "+quoteOrNone(r.Header.Get("Accept")))
		return
	}
	s := h.session(w, r)
	if s == nil {
		return
	}
	s.enter()
	defer s.leave()
	last := r.Header.Get(headerLastEventID)
	s.mu.Lock()
	var st *eventStream
	var cursor int64
	if last == "" {
		st = s.streams[standaloneStream]
		if st.writer != 0 {
			s.mu.Unlock()
			httpError(w, http.StatusConflict, "this session's GET stream is already open; close it first, or resume with Last-Event-ID")
			return
		}
		cursor = st.written
	} else {
		num, seq, ok := parseEventID(last)
		if ok {
			st = s.streams[num]
		}
		if st == nil {
			s.mu.Unlock()
			httpError(w, http.StatusBadRequest, "Last-Event-ID "+last+" names no stream this session can resume (too old, or not from this session); open a GET stream without it")
			return
		}
		cursor = seq
	}
	s.mu.Unlock()
	h.streamEvents(w, r, s, st, cursor)
}

// streamEvents writes st as an SSE response from after cursor: what is
// stored, then what comes, until a POST stream has sent all its answers,
// the client leaves, another response takes the stream over or the
// session ends. Events not written stay stored for a resumption.
func (h *HTTPServer) streamEvents(w http.ResponseWriter, r *http.Request, s *httpSession, st *eventStream, cursor int64) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	s.mu.Lock()
	s.writerGen++
	gen := s.writerGen
	st.writer = gen
	st.wake() // a writer still attached gives way
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if st.writer == gen {
			st.writer = 0
		}
		s.mu.Unlock()
	}()

	retry := int(h.cfg.Retry / time.Millisecond)
	var buf []byte
	// From 2025-11-25 a stream opens with an event that has an id and no
	// data, so the client can resume even before the first message.
	if speaksPriming(r, s) {
		buf = appendSSEEvent(buf, eventID(st.num, cursor), "", nil, retry)
		retry = 0
	}
	keepAlive := time.NewTicker(h.cfg.KeepAlive)
	defer keepAlive.Stop()
	var batch []storedEvent
	for {
		s.mu.Lock()
		if st.writer != gen {
			s.mu.Unlock()
			return
		}
		batch = append(batch[:0], st.after(cursor)...)
		complete := st.complete && st.num != standaloneStream
		changed := st.changed
		s.mu.Unlock()

		for _, e := range batch {
			buf = appendSSEEvent(buf, eventID(st.num, e.seq), "", e.data, retry)
			retry = 0
		}
		if len(buf) > 0 || len(batch) == 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(h.cfg.WriteTimeout))
			if len(buf) > 0 {
				if _, err := w.Write(buf); err != nil {
					return
				}
			}
			if err := rc.Flush(); err != nil {
				return
			}
			buf = buf[:0]
		}
		if len(batch) > 0 {
			cursor = batch[len(batch)-1].seq
			s.mu.Lock()
			st.written = max(st.written, cursor)
			s.mu.Unlock()
		}
		if complete {
			return
		}
		select {
		case <-changed:
		case <-keepAlive.C:
			buf = append(buf, keepAliveComment...)
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
	}
}

// keepAliveComment is an SSE comment: clients ignore it, but proxies and
// clients with a read timeout see that an idle stream is alive.
const keepAliveComment = ": keep-alive\n\n"
