package proxy

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// Reasons the watcher gives requests that ended without an answer.
const (
	ReasonHostGone   = "the host disconnected with the request pending and sent no cancel"
	ReasonServerGone = "the server exited with the request pending"
	ReasonStream     = "the host closed the request's response stream"
	// ReasonProxyKilled: the proxy's kill switch cancelled it for the host.
	ReasonProxyKilled = "mcpoke proxy's kill switch"
	ReasonProxyGone   = "the proxy ended with the request pending (killed?): what became of it is unknown"
)

// Watcher reads a proxy's attach stream (its transcript lines) back into
// what mcpoke's TUI shows of its own sessions: wire records for the wire
// log, and session events for the request rows, with the host's requests
// as the TUI's own (outgoing) and the server's requests to the host as
// incoming. It holds the same rules as Table: the proxy only watches, so
// a cancel is the sender's and an answer after it is late. Line is for
// one goroutine; Info and Header may be called from any.
type Watcher struct {
	start time.Time
	seq   uint64
	live  map[rowKey]*watched // requests not yet answered, or cancelled
	// tokens maps a progress token to its request.
	tokens map[rowKey]rowKey

	// holds are the changes to the proxy's holds made by the lines read
	// since Holds was last called.
	holds []Hold

	mu     sync.Mutex
	infos  map[uint64]session.RequestInfo // every request seen, by Seq
	order  []uint64                       // Seqs in order, to bound infos
	header WatchHeader
}

// WatchHeader is what the TUI's header says of a proxied session.
type WatchHeader struct {
	Host       string // the host's clientInfo: name and version
	Server     string // the server's serverInfo
	Version    string // the protocol version the server answered with
	Transport  string // "stdio" or "http", from the relay's first word
	Upstream   string // what the proxy relays to
	Ended      string // why the stream ended, once the proxy ended
	HostClosed bool
}

type watched struct {
	info      *session.RequestInfo
	cancelled bool
	// hold is the proxy's hold on its answer, while it holds it.
	hold *watchHold
}

// watchHold is a hold on an answer: since when, and the answer once it
// came (the host gets it when the hold ends, if it is passed on).
type watchHold struct {
	at     time.Time
	answer json.RawMessage
	msg    watchMessage
}

// Hold is the proxy holding the answer to one of the host's requests
// (a fault: the hold key, --delay, --answer-after-cancel): it kept the
// server's answer from the host from At until Ended (zero while it still
// holds it), then passed it on, or dropped it (Dropped): the host never
// got it. The watcher hands one on when a hold begins and when it ends.
type Hold struct {
	Ref     session.Ref
	At      time.Time
	Ended   time.Time
	Dropped bool
}

// maxWatchedInfos bounds the requests whose full record a Watcher keeps.
const maxWatchedInfos = 20_000

// NewWatcher reads lines whose times count from start.
func NewWatcher(start time.Time) *Watcher {
	return &Watcher{start: start, live: map[rowKey]*watched{}, tokens: map[rowKey]rowKey{},
		infos: map[uint64]session.RequestInfo{}}
}

// Header is what is known of the host, the server and the relay so far.
func (w *Watcher) Header() WatchHeader {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.header
}

// Holds returns the changes to the proxy's holds made by the lines read
// since it was last called, in order: call it after each Line, and hand
// them on after that line's events.
func (w *Watcher) Holds() []Hold {
	h := w.holds
	w.holds = nil
	return h
}

// Info is the record of request seq, as the session would give it.
func (w *Watcher) Info(seq uint64) (session.RequestInfo, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	i, ok := w.infos[seq]
	return i, ok
}

// Line reads one transcript line: its wire record (ok false for a line
// that is none) and the events it makes.
func (w *Watcher) Line(line []byte) (rec wire.Record, events []session.Event, ok bool) {
	rec, ok = RecordOfAnyLine(line, w.start)
	if !ok {
		return rec, nil, false
	}
	switch rec.Kind {
	case wire.KindRelay:
		events = w.relay(rec)
	case wire.KindFrame:
		for _, raw := range rawMessages(rec.Data) {
			events = append(events, w.message(rec.Dir, rec.Session, rec.At, raw)...)
		}
	}
	return rec, events, true
}

// RecordOfAnyLine reads back any transcript line a proxy wrote into the
// record it was made of, as near as the line keeps it.
func RecordOfAnyLine(line []byte, start time.Time) (wire.Record, bool) {
	var l struct {
		T     float64         `json:"t"`
		Dir   string          `json:"dir"`
		Msg   json.RawMessage `json:"msg"`
		Raw   *string         `json:"raw"`
		Relay *string         `json:"relay"`
		HTTP  *string         `json:"http"`
		Size  int             `json:"size"`
		Sess  string          `json:"session"`
	}
	if json.Unmarshal(line, &l) != nil {
		return wire.Record{}, false
	}
	r := wire.Record{At: start.Add(time.Duration(l.T * float64(time.Millisecond))), Dir: wire.In, Session: l.Sess}
	if l.Dir == "out" {
		r.Dir = wire.Out
	}
	switch {
	case l.Relay != nil:
		r.Kind, r.Data = wire.KindRelay, []byte(*l.Relay)
	case l.HTTP != nil:
		r.Kind, r.Data = wire.KindHTTP, []byte(*l.HTTP)
	case len(l.Msg) > 0:
		r.Kind, r.Data, r.Size = wire.KindFrame, l.Msg, max(l.Size, len(l.Msg))
	case l.Raw != nil && l.Dir == "stderr":
		r.Kind, r.Data = wire.KindStderr, []byte(*l.Raw)
	case l.Raw != nil:
		r.Kind, r.Data, r.Size = wire.KindNoise, []byte(*l.Raw), len(*l.Raw)
		if l.Size > len(*l.Raw) {
			r.Kind, r.Size = wire.KindOversize, l.Size
		}
	default:
		return wire.Record{}, false
	}
	return r, true
}

// watchMessage is what the watcher reads of one message.
type watchMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

type watchParams struct {
	Name            string          `json:"name"`
	RequestID       json.RawMessage `json:"requestId"`
	Reason          string          `json:"reason"`
	ProgressToken   json.RawMessage `json:"progressToken"`
	Progress        *float64        `json:"progress"`
	Total           *float64        `json:"total"`
	Message         string          `json:"message"`
	ProtocolVersion string          `json:"protocolVersion"`
	ClientInfo      implementation  `json:"clientInfo"`
	Meta            struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		// The 2026-07-28 era says on each request what initialize said.
		ProtocolVersion string         `json:"io.modelcontextprotocol/protocolVersion"`
		ClientInfo      implementation `json:"io.modelcontextprotocol/clientInfo"`
	} `json:"_meta"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func (i implementation) String() string { return strings.TrimSpace(i.Name + " " + i.Version) }

func (w *Watcher) message(dir wire.Direction, sess string, at time.Time, raw json.RawMessage) []session.Event {
	var m watchMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var p watchParams
	json.Unmarshal(m.Params, &p) // params of another shape leave p empty
	other := wire.In
	if dir == wire.In {
		other = wire.Out
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		return w.request(dir, sess, at, m, p)
	case m.Method == "notifications/cancelled":
		return w.cancelled(rowKey{dir, sess, compact(p.RequestID)}, at, p.Reason, session.CancelWire{Notified: true})
	case m.Method == "notifications/progress":
		k, ok := w.tokens[rowKey{other, sess, compact(p.ProgressToken)}]
		if !ok {
			return nil
		}
		return w.progress(k, at, raw, p)
	case m.Method == "" && len(m.ID) > 0:
		return w.answer(rowKey{other, sess, compact(m.ID)}, at, raw, m)
	}
	return nil
}

func (w *Watcher) request(dir wire.Direction, sess string, at time.Time, m watchMessage, p watchParams) []session.Event {
	k := rowKey{dir, sess, compact(m.ID)}
	if _, open := w.live[k]; open {
		return nil // an id reused while open: the first keeps its row
	}
	id, err := session.ParseID(m.ID)
	if err != nil {
		return nil
	}
	w.seq++
	info := &session.RequestInfo{Seq: w.seq, ID: id, Incoming: dir == wire.In, Method: m.Method,
		Params: bytes.Clone(m.Params), State: session.Pending, Started: at, Session: sess}
	if m.Method == "tools/call" {
		info.Tool = p.Name
	}
	w.live[k] = &watched{info: info}
	if tok := p.Meta.ProgressToken; len(tok) > 0 {
		w.tokens[rowKey{dir, sess, compact(tok)}] = k
	}
	w.mu.Lock()
	switch {
	case dir != wire.Out:
	case m.Method == "initialize":
		w.header.Host = p.ClientInfo.String()
		if w.header.Version == "" {
			w.header.Version = p.ProtocolVersion
		}
	case p.Meta.ProtocolVersion != "":
		if h := p.Meta.ClientInfo.String(); h != "" {
			w.header.Host = h
		}
		w.header.Version = p.Meta.ProtocolVersion
	}
	w.mu.Unlock()
	w.keep(info)
	return []session.Event{session.RequestStarted{Info: *info}}
}

// cancelled: the request's sender cancelled it. The host's cancels are
// shown as the TUI shows its own (cancelling, then cancelled at once: the
// proxy has no settle window to wait out); the server's as a peer's.
func (w *Watcher) cancelled(k rowKey, at time.Time, reason string, how session.CancelWire) []session.Event {
	row := w.live[k]
	if row == nil || row.cancelled {
		return nil
	}
	row.cancelled = true
	if how.StreamClosed {
		// The host closed the stream its held answer was to come on.
		w.endHold(k, at, false)
	}
	i := row.info
	ref := refOf(i)
	i.CancelReason, i.CancelAt, i.CancelSentAt, i.CancelWire, i.Ended = reason, at, at, how, at
	i.State = session.Cancelled
	w.keep(i)
	if i.Incoming {
		return []session.Event{session.StateChanged{Ref: ref, From: session.Pending, To: session.Cancelled, At: at, Reason: reason}}
	}
	return []session.Event{
		session.StateChanged{Ref: ref, From: session.Pending, To: session.Cancelling, At: at, Reason: reason},
		session.CancelSent{Ref: ref, At: at, Wire: how},
		session.StateChanged{Ref: ref, From: session.Cancelling, To: session.Cancelled, At: at, Reason: reason},
	}
}

func (w *Watcher) progress(k rowKey, at time.Time, raw json.RawMessage, p watchParams) []session.Event {
	row := w.live[k]
	if row == nil {
		return nil
	}
	i := row.info
	if row.cancelled {
		return []session.Event{session.LateArrived{Ref: refOf(i), Late: session.LateFrame{Kind: session.LateProgress, At: at,
			AfterCancel: at.Sub(i.CancelSentAt), Data: clip(raw), Size: len(raw)}}}
	}
	pr := session.Progress{At: at, Total: p.Total, Message: p.Message}
	if p.Progress != nil {
		pr.Progress = *p.Progress
	}
	i.Progress, i.ProgressCount = &pr, i.ProgressCount+1
	w.keep(i)
	return []session.Event{session.ProgressUpdated{Ref: refOf(i), Progress: pr}}
}

func (w *Watcher) answer(k rowKey, at time.Time, raw json.RawMessage, m watchMessage) []session.Event {
	row := w.live[k]
	if row == nil {
		return nil
	}
	if h := row.hold; h != nil && h.answer == nil {
		// The proxy keeps it from the host: the host gets it, if at all,
		// when the hold ends.
		h.answer, h.msg = bytes.Clone(raw), m
		return nil
	}
	i := row.info
	failed := len(m.Error) > 0 && !bytes.Equal(m.Error, []byte("null"))
	if row.cancelled {
		kind := session.LateResponse
		if failed {
			kind = session.LateError
		}
		delete(w.live, k) // one late answer; more would be duplicates
		return []session.Event{session.LateArrived{Ref: refOf(i), Late: session.LateFrame{Kind: kind, At: at,
			AfterCancel: at.Sub(i.CancelSentAt), Data: clip(raw), Size: len(raw)}}}
	}
	delete(w.live, k)
	from := i.State
	i.State, i.Ended = session.Completed, at
	if failed {
		i.State = session.Failed
		var e session.RPCError
		if json.Unmarshal(m.Error, &e) == nil {
			i.Error = &e
		}
	} else {
		i.Result = bytes.Clone(m.Result)
	}
	if !i.Incoming && !failed {
		var r struct {
			ProtocolVersion string         `json:"protocolVersion"`
			ServerInfo      implementation `json:"serverInfo"`
			Meta            struct {
				ServerInfo implementation `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
		}
		json.Unmarshal(m.Result, &r)
		w.mu.Lock()
		switch {
		case i.Method == "initialize":
			w.header.Server = r.ServerInfo.String()
			if r.ProtocolVersion != "" {
				w.header.Version = r.ProtocolVersion
			}
		case r.Meta.ServerInfo.Name != "":
			w.header.Server = r.Meta.ServerInfo.String()
		}
		w.mu.Unlock()
	}
	w.keep(i)
	return []session.Event{session.StateChanged{Ref: refOf(i), From: from, To: i.State, At: at}}
}

// relay ends the requests a relay event leaves without an answer.
func (w *Watcher) relay(r wire.Record) []session.Event {
	event := string(r.Data)
	w.mu.Lock()
	if w.header.Upstream == "" {
		if _, up, ok := strings.Cut(event, " relays to: "); ok {
			w.header.Upstream, w.header.Transport = up, "stdio"
			if strings.HasPrefix(up, "http://") || strings.HasPrefix(up, "https://") {
				w.header.Transport = "http"
			}
		}
	}
	if event == EventHostClosed {
		w.header.HostClosed = true
	}
	w.mu.Unlock()
	if id, ok := strings.CutPrefix(event, EventStreamClosed); ok {
		return w.cancelled(rowKey{wire.Out, r.Session, id}, r.At, ReasonStream, session.CancelWire{StreamClosed: true})
	}
	switch {
	case event == EventHostClosed:
		return w.end(r.At, ReasonHostGone, func(k rowKey) bool { return k.from == wire.Out })
	case event == EventHostGone, event == EventServerClosed, event == EventStopped, strings.Contains(event, " relays to: "):
		return nil
	}
	// The proxy's own words (kill switch, holds, faults) end no request
	// but the kill, as in Table.
	if id, ok := ProxyCancelledID(event); ok {
		return w.cancelled(rowKey{wire.Out, r.Session, id}, r.At, ReasonProxyKilled, session.CancelWire{})
	}
	if events, ok := w.holdEvent(r, event); ok {
		return events
	}
	if strings.HasPrefix(event, ProxyWords) {
		return nil
	}
	return w.end(r.At, ReasonServerGone+": "+event, func(rowKey) bool { return true })
}

// holdEvent reads the proxy's holds: one begins, or ends with the answer
// passed on (its events then) or dropped. ok is false for another event.
func (w *Watcher) holdEvent(r wire.Record, event string) (events []session.Event, ok bool) {
	for _, p := range []string{EventHeld, EventReleased, EventDropped, EventLateDropped} {
		rest, found := strings.CutPrefix(event, p)
		if !found {
			continue
		}
		id, _, _ := strings.Cut(rest, " (")
		k := rowKey{wire.Out, r.Session, id}
		row := w.live[k]
		if row == nil {
			return nil, true
		}
		switch p {
		case EventHeld:
			if row.hold == nil {
				row.hold = &watchHold{at: r.At}
				w.holds = append(w.holds, Hold{Ref: refOf(row.info), At: r.At})
			}
			return nil, true
		case EventReleased:
			return w.endHold(k, r.At, true), true
		default:
			return w.endHold(k, r.At, false), true
		}
	}
	return nil, false
}

// endHold ends the hold on request k's answer at at: passed on to the
// host (its answer's events, if it came), or dropped.
func (w *Watcher) endHold(k rowKey, at time.Time, passed bool) []session.Event {
	row := w.live[k]
	if row == nil || row.hold == nil {
		return nil
	}
	h := row.hold
	row.hold = nil
	w.holds = append(w.holds, Hold{Ref: refOf(row.info), At: h.at, Ended: at, Dropped: !passed})
	if !passed || h.answer == nil {
		return nil
	}
	return w.answer(k, at, h.answer, h.msg)
}

// End is the stream's end: a request still pending then was left so by a
// proxy that ended without a word (killed), and nothing more will be
// seen of it.
func (w *Watcher) End(at time.Time) []session.Event {
	return w.end(at, ReasonProxyGone, func(rowKey) bool { return true })
}

// end fails the pending requests that which picks, for reason.
func (w *Watcher) end(at time.Time, reason string, which func(rowKey) bool) []session.Event {
	var ended []rowKey
	for k, row := range w.live {
		if !row.cancelled && which(k) {
			ended = append(ended, k)
		}
	}
	// In order of Seq, so that rows end in the order they began.
	sort.Slice(ended, func(a, b int) bool { return w.live[ended[a]].info.Seq < w.live[ended[b]].info.Seq })
	var out []session.Event
	for _, k := range ended {
		w.endHold(k, at, false) // the host will never get it now
		i := w.live[k].info
		i.State, i.Ended, i.Failure = session.Failed, at, reason
		delete(w.live, k)
		w.keep(i)
		out = append(out, session.StateChanged{Ref: refOf(i), From: session.Pending, To: session.Failed, At: at, Reason: reason})
	}
	return out
}

// keep stores a copy of the request's record for Info.
func (w *Watcher) keep(i *session.RequestInfo) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.infos[i.Seq]; !ok {
		w.order = append(w.order, i.Seq)
		if len(w.order) > maxWatchedInfos {
			delete(w.infos, w.order[0])
			w.order = w.order[1:]
		}
	}
	w.infos[i.Seq] = *i
}

func refOf(i *session.RequestInfo) session.Ref {
	return session.Ref{Seq: i.Seq, ID: i.ID, Incoming: i.Incoming}
}

// clip keeps the start of a late frame, as the session does.
func clip(raw json.RawMessage) []byte {
	const keep = 4 << 10
	return bytes.Clone(raw[:min(len(raw), keep)])
}

// rawMessages splits a frame into its messages: one, or a batch's.
func rawMessages(frame []byte) []json.RawMessage {
	frame = bytes.TrimLeft(frame, " \t\r\n")
	if len(frame) > 0 && frame[0] == '[' {
		var batch []json.RawMessage
		json.Unmarshal(frame, &batch)
		return batch
	}
	return []json.RawMessage{frame}
}
