package transport

import (
	"strconv"
	"strings"
)

// standaloneStream is the number of the GET stream, for messages that
// answer no request. POST streams count up from 1.
const standaloneStream = 0

// storedEvent is one message sent on a stream, kept for resumption.
type storedEvent struct {
	seq      int64
	data     []byte
	response bool
}

// eventStream is one SSE stream of an HTTP session: the standalone GET
// stream, or the stream of one POST's requests. Its events are kept,
// bounded, so a client that lost the connection can resume it with
// Last-Event-ID. Guarded by its httpSession's mu.
type eventStream struct {
	num     int
	events  []storedEvent // oldest first, seq ascending
	bytes   int
	nextSeq int64 // seq of the next event; the first is 1
	// written is the highest seq a live writer wrote: a GET stream opened
	// with no Last-Event-ID starts after it, so queued messages arrive.
	written int64

	requests []string // ids of the requests still unanswered
	tokens   []string // their progress tokens
	jsonOnly bool     // the client takes one JSON body: other messages are dropped
	// complete: every request has its response stored; a POST stream ends
	// once its writer has sent them.
	complete bool

	// writer is the generation of the HTTP response writing this stream,
	// 0 when none: a resumption takes over from a writer still attached.
	writer uint64
	// changed is closed, and replaced, when events are added or the writer
	// changes: writers wait on it.
	changed chan struct{}
}

func newEventStream(num int) *eventStream {
	return &eventStream{num: num, nextSeq: 1, changed: make(chan struct{})}
}

// wake tells the writer something changed.
func (st *eventStream) wake() {
	close(st.changed)
	st.changed = make(chan struct{})
}

// add stores one message, dropping the oldest past the limits.
func (st *eventStream) add(data []byte, response bool, maxEvents, maxBytes int) {
	st.events = append(st.events, storedEvent{seq: st.nextSeq, data: data, response: response})
	st.nextSeq++
	st.bytes += len(data)
	drop := 0
	for len(st.events)-drop > 1 && (len(st.events)-drop > maxEvents || st.bytes > maxBytes) {
		st.bytes -= len(st.events[drop].data)
		drop++
	}
	if drop > 0 {
		st.events = append(st.events[:0], st.events[drop:]...)
	}
	st.wake()
}

// after returns the stored events with seq > cursor.
func (st *eventStream) after(cursor int64) []storedEvent {
	for i, e := range st.events {
		if e.seq > cursor {
			return st.events[i:len(st.events):len(st.events)]
		}
	}
	return nil
}

// answered removes a request id; the stream is complete with the last.
func (st *eventStream) answered(id string) {
	for i, r := range st.requests {
		if r == id {
			st.requests = append(st.requests[:i], st.requests[i+1:]...)
			break
		}
	}
	if len(st.requests) == 0 {
		st.complete = true
	}
}

// eventID names an event by stream and position: unique within the
// session, and enough to find the stream again from Last-Event-ID.
func eventID(stream int, seq int64) string {
	return strconv.Itoa(stream) + "-" + strconv.FormatInt(seq, 10)
}

// parseEventID reads an id made by eventID.
func parseEventID(id string) (stream int, seq int64, ok bool) {
	s, q, found := strings.Cut(id, "-")
	if !found {
		return 0, 0, false
	}
	n, err1 := strconv.Atoi(s)
	m, err2 := strconv.ParseInt(q, 10, 64)
	if err1 != nil || err2 != nil || n < 0 || m < 0 {
		return 0, 0, false
	}
	return n, m, true
}
