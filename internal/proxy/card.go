package proxy

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// Card grades the host from what passed the proxy: how it cancels, when,
// whether it asks for progress, what it does after a cancel and when it
// leaves. It is a Recorder observer, like the Table, and safe for
// concurrent use; Report makes the card at any moment.
//
// Over Streamable HTTP one proxy serves several host sessions (s1, s2,
// ...), which may be different hosts on different eras: each is graded
// on its own (hostCard), by its own clientInfo, era, cancels and close.
type Card struct {
	mu        sync.Mutex
	transport string // "stdio" or "http"
	sessions  map[string]*hostCard
	labels    []string  // the sessions in the order first seen
	last      time.Time // the latest record's time: the card's "now"
	requests  int       // the requests kept over all sessions
	cancelled int       // the cancels kept over all sessions
	ignored   int       // sessions past maxCardSessions, not graded
}

// hostCard grades one host session: the whole host on stdio, one
// Mcp-Session-Id's over HTTP.
type hostCard struct {
	label     string // the session's label, "" on stdio or without a session id
	transport string
	era       string // the protocol version the host asked for
	host      string // clientInfo's name and version
	reqs      map[string]*hostRequest
	order     []string
	cancels   []hostCancel
	kills     []string // ids the proxy cancelled on the host's behalf
	closedAt  time.Time
	last      time.Time // the card's "now", set before grading
	abandoned []string  // ids pending with no cancel when the host left
	// budget and cancelBudget are the Card's counts of requests and
	// cancels kept, shared by its sessions.
	budget, cancelBudget *int
}

// hostRequest is one of the host's requests, as the card sees it.
type hostRequest struct {
	id      string // cardID: the id, after its session's label over HTTP
	session string
	method  string
	key     string // method and params without _meta: the same call again
	sent    time.Time
	token   string // its progressToken as JSON text, "" without
	// progress counts its progress notifications; lastProgress is the
	// latest's time (a flood of them costs no memory).
	progress     int
	lastProgress time.Time
	answered     time.Time // zero while pending
	late         []time.Duration
	cancel       *hostCancel
	killed       bool
	// held: the proxy holds its answer (a fault); the host sees it only
	// when it is released, and that is when the card counts it.
	held bool
}

// hostCancel is one cancel the host made: a notification, or a closed
// response stream.
type hostCancel struct {
	id     string
	at     time.Time
	stream bool // a closed stream rather than notifications/cancelled
	reason string
	// what the request was when the cancel came: "pending", "answered
	// 12ms before", "unknown", "cancelled already", "initialize".
	state      string
	answeredBy time.Duration // for "answered": how long before
}

// maxCardRequests bounds what a card keeps: the host's first requests
// are enough to grade it, and the counts go on.
const maxCardRequests = 20_000

// maxCardSessions bounds the host sessions a card grades; later ones are
// counted (Card.ignored), not graded.
const maxCardSessions = 1_000

// NewCard grades a host over transport ("stdio" or "http").
func NewCard(transport string) *Card {
	return &Card{transport: transport, sessions: map[string]*hostCard{}}
}

// session is the card of host session label, made when first seen; nil
// past maxCardSessions.
func (c *Card) session(label string) *hostCard {
	if h := c.sessions[label]; h != nil {
		return h
	}
	if len(c.sessions) >= maxCardSessions {
		c.ignored++
		return nil
	}
	h := &hostCard{label: label, transport: c.transport, reqs: map[string]*hostRequest{}, budget: &c.requests, cancelBudget: &c.cancelled}
	c.sessions[label] = h
	c.labels = append(c.labels, label)
	return h
}

// Observe takes one record of the relay.
func (c *Card) Observe(r wire.Record) { c.ObserveParsed(r, Parse(r)) }

// ObserveParsed takes one record of the relay with its frame read.
func (c *Card) ObserveParsed(r wire.Record, p Parsed) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.At.After(c.last) {
		c.last = r.At
	}
	switch r.Kind {
	case wire.KindRelay:
		if string(r.Data) == EventHostClosed {
			// stdio's host leaving: every session it had (the one) ends.
			for _, label := range c.labels {
				c.sessions[label].hostClosed(r.At)
			}
			return
		}
		if h := c.sessions[r.Session]; h != nil {
			h.relayEvent(r)
		}
		return
	case wire.KindHTTP:
		// A host's DELETE ends its session over HTTP: what it left
		// pending then, it left without a cancel.
		if h := c.sessions[r.Session]; h != nil && r.Session != "" && bytes.HasPrefix(r.Data, []byte("DELETE ")) {
			h.hostClosed(r.At)
		}
		return
	case wire.KindFrame:
	default:
		return
	}
	var h *hostCard
	if r.Dir == wire.Out {
		h = c.session(r.Session) // a host's frame begins its session
	} else {
		h = c.sessions[r.Session]
	}
	if h == nil {
		return
	}
	for _, m := range p.ms {
		if r.Dir == wire.Out {
			h.fromHost(r.At, r.Session, m)
		} else {
			h.fromServer(r.At, r.Session, m)
		}
	}
}

// cardID names a request on the card: its id, after its session's label
// over HTTP (s2:3), where sessions may use the same ids.
func cardID(session string, id json.RawMessage) string {
	return RequestRef{session, compact(id)}.String()
}

func (c *hostCard) fromHost(at time.Time, session string, m message) {
	p := &m.p
	switch {
	case m.Method != "" && len(m.ID) > 0:
		id := cardID(session, m.ID)
		if _, ok := c.reqs[id]; ok || *c.budget >= maxCardRequests {
			return
		}
		*c.budget++
		if m.Method == "initialize" && p.ProtocolVersion != "" {
			c.era = p.ProtocolVersion
		}
		if p.Meta.Version != "" && c.era == "" {
			c.era = p.Meta.Version
		}
		for _, ci := range []*cardImpl{p.ClientInfo, p.Meta.ClientInfo} {
			if ci != nil && c.host == "" {
				c.host = ci.String()
			}
		}
		c.reqs[id] = &hostRequest{id: id, session: session, method: m.Method, key: callKey(&m), sent: at,
			token: progressToken(p.Meta.ProgressToken)}
		c.order = append(c.order, id)
	case m.Method == "notifications/cancelled":
		c.cancel(hostCancel{id: cardID(session, p.RequestID), at: at, reason: p.Reason})
	}
}

func (c *hostCard) fromServer(at time.Time, session string, m message) {
	switch {
	case m.Method == "notifications/progress":
		tok := compact(m.p.ProgressToken)
		for i := len(c.order) - 1; i >= 0; i-- {
			q := c.reqs[c.order[i]]
			if q.token != "" && q.token == tok && q.session == session {
				// Progress that crossed the host's cancel on the wire is
				// not what its clock saw before it gave up.
				if q.cancel == nil {
					q.progress++
					q.lastProgress = at
				}
				return
			}
		}
	case m.Method == "" && len(m.ID) > 0:
		q := c.reqs[cardID(session, m.ID)]
		if q == nil || q.held {
			return
		}
		c.answer(q, at)
	}
}

// answer notes the answer to q reaching the host at at.
func (c *hostCard) answer(q *hostRequest, at time.Time) {
	{
		switch {
		case q.cancel != nil || q.killed:
			if q.cancel != nil {
				q.late = append(q.late, at.Sub(q.cancel.at))
			}
		case q.answered.IsZero():
			q.answered = at
		}
	}
}

func (c *hostCard) cancel(hc hostCancel) {
	q := c.reqs[hc.id]
	switch {
	case q == nil:
		hc.state = "unknown"
	case q.method == "initialize":
		hc.state = "initialize"
	case q.cancel != nil && q.cancel.stream && !hc.stream && hc.at.Sub(q.cancel.at) < raceWindow:
		// A notification right after the host closed the stream: one
		// cancel made in both forms (the Go SDK does so in 2026-07-28).
		hc.state = "pending"
	case q.cancel != nil:
		hc.state = "cancelled already"
	case !q.answered.IsZero():
		hc.state = "answered"
		hc.answeredBy = hc.at.Sub(q.answered)
	default:
		hc.state = "pending"
	}
	if *c.cancelBudget >= maxCardRequests {
		return // the first cancels are enough to grade the host
	}
	*c.cancelBudget++
	c.cancels = append(c.cancels, hc)
	if q != nil && q.cancel == nil && q.answered.IsZero() && !q.killed {
		q.cancel = &c.cancels[len(c.cancels)-1]
	}
}

func (c *hostCard) relayEvent(r wire.Record) {
	event := string(r.Data)
	if id, ok := strings.CutPrefix(event, EventStreamClosed); ok {
		c.cancel(hostCancel{id: RequestRef{r.Session, id}.String(), at: r.At, stream: true})
		return
	}
	if id, ok := ProxyCancelledID(event); ok {
		id = RequestRef{r.Session, id}.String()
		if q := c.reqs[id]; q != nil {
			q.killed = true
		}
		c.kills = append(c.kills, id)
		return
	}
	for _, p := range []string{EventHeld, EventReleased, EventDropped} {
		rest, ok := strings.CutPrefix(event, p)
		if !ok {
			continue
		}
		id, _, _ := strings.Cut(rest, " (")
		q := c.reqs[RequestRef{r.Session, id}.String()]
		if q == nil {
			return
		}
		switch p {
		case EventHeld:
			q.held = true
		case EventReleased:
			q.held = false
			c.answer(q, r.At)
		}
		return
	}
}

// hostClosed: the host left (stdio's input closed, or its DELETE over
// HTTP); what it had pending then, it left without a cancel.
func (c *hostCard) hostClosed(at time.Time) {
	if !c.closedAt.IsZero() {
		return
	}
	c.closedAt = at
	for _, id := range c.order {
		if q := c.reqs[id]; q.answered.IsZero() && q.cancel == nil && !q.killed {
			c.abandoned = append(c.abandoned, id)
		}
	}
}

// progressToken is a token as JSON text, "" for none or null.
func progressToken(t json.RawMessage) string {
	if len(t) == 0 || string(t) == "null" {
		return ""
	}
	return compact(t)
}

// callKey says which call a request makes, so that the same call sent
// again matches whatever its id and token: for a tools/call, the tool's
// name and a hash of its arguments as they were written (a host sends
// the same call again the way it sent it); for other requests, the
// method alone (only calls are graded for repeats). Hashing keeps a
// card of many large calls small, and is cheap next to re-encoding the
// params.
func callKey(m *message) string {
	if m.Method != "tools/call" {
		return m.Method
	}
	var h maphash.Hash
	h.SetSeed(callKeySeed)
	h.Write(bytes.TrimSpace(m.p.Arguments))
	return m.Method + " " + m.p.Name + " " + strconv.FormatUint(h.Sum64(), 16)
}

var callKeySeed = maphash.MakeSeed()
