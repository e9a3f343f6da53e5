package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// State is what the wire has shown of one request that passed the proxy.
type State string

// The states of a relayed request. The proxy only watches: a request is
// cancelled by whoever sent it, and its answer, late or not, went on.
const (
	Pending  State = "pending"
	Answered State = "answered" // a result came back
	Failed   State = "failed"   // a JSON-RPC error came back
	// Cancelled: its sender cancelled it (notifications/cancelled, with
	// CancelReason) and no answer came since.
	Cancelled State = "cancelled"
	// Late: an answer came after the sender's cancel, and went on to it.
	Late State = "late"
	// Abandoned: the host closed its input with the request pending and
	// no cancel sent for it.
	Abandoned State = "abandoned"
	// ServerGone: the server exited with the request pending.
	ServerGone State = "server-gone"
)

// Who cancelled a request (Row.CancelledBy).
const (
	CancelledByHost  = "host"
	CancelledByProxy = "proxy"
)

// maxEndedRows bounds the ended requests a Table keeps; open ones are
// all kept.
const maxEndedRows = 10_000

// Row is one request that passed the proxy.
type Row struct {
	// ID is the request's id as JSON text: 3 and "3" differ, as they do
	// to the peers.
	ID string
	// Session is the host session's label over HTTP (s1, s2, ...): two
	// sessions' requests may share an id. "" on stdio.
	Session string
	Method  string
	// From is wire.Out for the host's requests to the server, wire.In for
	// the server's requests to the host.
	From  wire.Direction
	State State
	Sent  time.Time
	// Ended is when it got its final state (for Late, when the cancel
	// came; LateBy says how long after it the answer came).
	Ended        time.Time
	CancelReason string
	// CancelledBy says who cancelled it: CancelledByHost, or
	// CancelledByProxy for the kill switch; "" while not cancelled.
	CancelledBy string
	CancelAt    time.Time
	LateBy      time.Duration
	Progress    int // progress notifications for it
	Duplicates  int // answers after the first
	// Hold says what the proxy did with its answer as a fault (the hold
	// key, --delay, --answer-after-cancel): HoldHeld while it keeps it
	// from the host (the state says the server answered; the host waits
	// still), then HoldPassed or HoldDropped; "" for none. HeldAt and
	// HoldEnded time it.
	Hold      string
	HeldAt    time.Time
	HoldEnded time.Time
}

// What the proxy did with a request's answer (Row.Hold).
const (
	HoldHeld    = "held"
	HoldPassed  = "passed on"
	HoldDropped = "dropped"
)

// Table is the proxy's model of the requests it relays, fed the records
// of both directions (Observe). It is safe for concurrent use.
type Table struct {
	mu     sync.Mutex
	rows   map[rowKey]*Row
	order  []rowKey // in the order sent, for Rows and trimming
	tokens map[rowKey]rowKey
	ended  int
}

// rowKey names a request: who sent it, in which host session (over
// HTTP, where two sessions may use the same id), and its id.
type rowKey struct {
	from    wire.Direction
	session string
	id      string
}

// NewTable returns an empty table.
func NewTable() *Table {
	return &Table{rows: map[rowKey]*Row{}, tokens: map[rowKey]rowKey{}}
}

// Observe takes one record of the relay.
func (t *Table) Observe(r wire.Record) { t.ObserveParsed(r, Parse(r)) }

// ObserveParsed takes one record of the relay with its frame read.
func (t *Table) ObserveParsed(r wire.Record, p Parsed) {
	switch r.Kind {
	case wire.KindFrame:
	case wire.KindRelay:
		t.relayEvent(r)
		return
	default:
		return
	}
	for _, m := range p.ms {
		t.mu.Lock()
		t.message(r.Dir, r.Session, r.At, m)
		t.mu.Unlock()
	}
}

func (t *Table) message(dir wire.Direction, sess string, at time.Time, m message) {
	other := wire.In
	if dir == wire.In {
		other = wire.Out
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		k := rowKey{dir, sess, compact(m.ID)}
		if _, ok := t.rows[k]; ok {
			return // an id reused while open: the first keeps its row
		}
		t.rows[k] = &Row{ID: k.id, Session: sess, Method: m.Method, From: dir, State: Pending, Sent: at}
		t.order = append(t.order, k)
		if tok := m.p.Meta.ProgressToken; len(tok) > 0 {
			t.tokens[rowKey{dir, sess, compact(tok)}] = k
		}
	case m.Method == "notifications/cancelled":
		row := t.rows[rowKey{dir, sess, compact(m.p.RequestID)}]
		if row == nil || row.State != Pending {
			return
		}
		row.State, row.CancelReason, row.CancelAt, row.Ended = Cancelled, m.p.Reason, at, at
		row.CancelledBy = CancelledByHost
		if dir == wire.In {
			row.CancelledBy = "server"
		}
		t.ended++
	case m.Method == "notifications/progress":
		// Progress goes the other way from the request it is for.
		if k, ok := t.tokens[rowKey{other, sess, compact(m.p.ProgressToken)}]; ok {
			if row := t.rows[k]; row != nil {
				row.Progress++
			}
		}
	case m.Method == "" && len(m.ID) > 0:
		k := rowKey{other, sess, compact(m.ID)}
		row := t.rows[k]
		if row == nil {
			return
		}
		switch row.State {
		case Pending:
			row.State, row.Ended = Answered, at
			if len(m.Error) > 0 && !bytes.Equal(m.Error, []byte("null")) {
				row.State = Failed
			}
			t.ended++
		case Cancelled:
			row.State, row.LateBy = Late, at.Sub(row.CancelAt)
		default:
			row.Duplicates++
		}
		t.trim()
	}
}

// relayEvent ends the requests the event leaves without an answer.
func (t *Table) relayEvent(r wire.Record) {
	t.mu.Lock()
	defer t.mu.Unlock()
	event := string(r.Data)
	if id, ok := strings.CutPrefix(event, EventStreamClosed); ok {
		if row := t.rows[rowKey{wire.Out, r.Session, id}]; row != nil && row.State == Pending {
			row.State, row.CancelReason, row.CancelAt, row.Ended = Cancelled, "the host closed the request's response stream", r.At, r.At
			row.CancelledBy = CancelledByHost
			t.ended++
		}
		return
	}
	if id, ok := ProxyCancelledID(event); ok {
		if row := t.rows[rowKey{wire.Out, r.Session, id}]; row != nil && row.State == Pending {
			row.State, row.CancelReason, row.CancelAt, row.Ended = Cancelled, "mcpoke proxy's kill switch", r.At, r.At
			row.CancelledBy = CancelledByProxy
			t.ended++
		}
		return
	}
	if t.holdEvent(r, event) {
		return
	}
	if strings.HasPrefix(event, ProxyWords) {
		return // the proxy's own words: its start, injected frames
	}
	for _, k := range t.order {
		row := t.rows[k]
		switch {
		case row.State != Pending:
		case event == EventHostClosed && row.From == wire.Out:
			row.State, row.Ended = Abandoned, r.At
			t.ended++
		case event != EventHostClosed && event != EventHostGone && event != EventServerClosed && event != EventStopped:
			// The server's exit: nothing pending can be answered now.
			row.State, row.Ended = ServerGone, r.At
			t.ended++
		}
	}
}

// holdEvent notes the proxy's holds on answers; false for another event.
func (t *Table) holdEvent(r wire.Record, event string) bool {
	for _, p := range []string{EventHeld, EventReleased, EventDropped, EventLateDropped} {
		rest, ok := strings.CutPrefix(event, p)
		if !ok {
			continue
		}
		id, _, _ := strings.Cut(rest, " (")
		row := t.rows[rowKey{wire.Out, r.Session, id}]
		switch {
		case row == nil:
		case p == EventHeld:
			row.Hold, row.HeldAt, row.HoldEnded = HoldHeld, r.At, time.Time{}
		case row.Hold != HoldHeld:
		case p == EventReleased:
			row.Hold, row.HoldEnded = HoldPassed, r.At
		default:
			row.Hold, row.HoldEnded = HoldDropped, r.At
		}
		return true
	}
	return false
}

// trim forgets the oldest ended requests beyond maxEndedRows, a quarter
// at a time so that its pass over the table is paid once per many rows.
func (t *Table) trim() {
	if t.ended <= maxEndedRows+maxEndedRows/4 {
		return
	}
	kept := t.order[:0]
	for _, k := range t.order {
		if row := t.rows[k]; t.ended > maxEndedRows && row.State != Pending {
			delete(t.rows, k)
			t.ended--
			continue
		}
		kept = append(kept, k)
	}
	clear(t.order[len(kept):])
	t.order = kept
	for tok, k := range t.tokens {
		if t.rows[k] == nil {
			delete(t.tokens, tok)
		}
	}
}

// Rows returns a copy of the rows, in the order their requests passed.
func (t *Table) Rows() []Row {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Row, 0, len(t.order))
	for _, k := range t.order {
		out = append(out, *t.rows[k])
	}
	return out
}

// compact is JSON text without insignificant space, so that ids and
// tokens spelled differently but equal match.
func compact(b json.RawMessage) string {
	if !bytes.ContainsAny(b, " \t\r\n") {
		return string(b) // as Compact would write it: most ids, at no cost
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// Row returns the request ref from dir, if the table has it.
func (t *Table) Row(dir wire.Direction, ref RequestRef) (Row, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.rows[rowKey{dir, ref.Session, ref.ID}]
	if r == nil {
		return Row{}, false
	}
	return *r, true
}
