package check

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/transport"
)

// misbehaviour is what a test server gets wrong about cancellation. The
// zero value is a server that gets it right.
type misbehaviour struct {
	// ignoreCancel takes no notice of a cancel: the call runs to its end
	// and answers (as a stateless go-sdk server does): check 1.
	ignoreCancel bool
	// answerCancelled answers a cancelled call at once (as go-sdk
	// servers do): check 1; an ask call too, before it cancels its
	// question: check 9.
	answerCancelled bool
	// failCancelled fails a cancelled call at once with an error
	// response, as a server whose handler returns its context's error
	// does: with looseIDs, check 5.
	failCancelled bool
	// answerDelay delays that answer: over HTTP, where the cancel's own
	// POST may take a while, so that the answer surely comes after it.
	answerDelay time.Duration
	// progressAfterCancel goes on working and reporting progress after a
	// cancel (as the reference server does): check 2.
	progressAfterCancel bool
	// dieOnCancel closes the connection when a cancel arrives: check 3.
	dieOnCancel bool
	// answerInvalidCancel answers a cancel it cannot use with an error
	// response (id null): check 4.
	answerInvalidCancel bool
	// looseIDs keys its calls by the id's value, so "3" cancels 3:
	// check 5.
	looseIDs bool
	// cancelAll stops every call in flight on any cancel, without an
	// answer: check 6.
	cancelAll bool
	// dropIsCancel takes a POST whose client went before the answer for
	// a cancel of the call it carried (over HTTP only): check 8.
	dropIsCancel bool
	// noEventIDs strips the ids from its SSE events (over HTTP only), so
	// its streams cannot be resumed: check 8 skips the dropped stream.
	noEventIDs bool
	// emptyResume answers every GET with Last-Event-ID with an event
	// stream that ends at once, empty (over HTTP only): it gives event ids
	// but a resumed stream never brings the answer: check 8.
	emptyResume bool
	// onResume is called on each GET with Last-Event-ID (over HTTP
	// only): a test's hook, not a misbehaviour.
	onResume func()
	// keepOwnRequest leaves its elicitation open when the call that
	// asked it is cancelled (as the reference server does): check 9.
	keepOwnRequest bool
	// ownCancelAsString cancels its request 1 as "1": check 9.
	ownCancelAsString bool
	// ownCancelNamesCall cancels the call that asked (mcpoke's request)
	// instead of its own question: check 9.
	ownCancelNamesCall bool
	// ownCancelUnknown cancels a request it never sent: check 9.
	ownCancelUnknown bool
	// errorOnLateAnswer answers the answer to a request it cancelled
	// with an error response: check 9.
	errorOnLateAnswer bool
	// dieOnLateAnswer closes the connection on that answer: check 9.
	// deafAfterLateAnswer stops answering pings on it: check 9.
	dieOnLateAnswer     bool
	deafAfterLateAnswer bool
	// stuckAfterLateAnswer never answers an ask call again once that
	// answer came: check 9.
	stuckAfterLateAnswer bool
	// modern speaks 2026-07-28: it answers server/discover (the handshake
	// and the liveness probe) instead of initialize.
	modern bool
	// answerCancelledUnder answers a cancelled call (after answerDelay)
	// only while at least this many calls are in flight: a single
	// cancelled call gets no answer, a load does: check 6.
	answerCancelledUnder int
	// strayProgress sends, with each call, progress for a token mcpoke
	// never sent: check 2.
	strayProgress bool
	// progressWithoutToken reports progress for a call that sent no
	// progressToken, naming the call's id as its token: check 2.
	progressWithoutToken bool
	// errorUnder fails a call at once with an error response that says
	// nothing of a cancel (overloaded) when at least this many are in
	// flight as it starts: check 6.
	errorUnder int
	// slowUnder makes a call ten times slower (with its progress) when
	// at least this many are in flight as it starts: slow under load,
	// not wrong: check 6.
	slowUnder int
	// progressRepeats sends each progress value twice: the second does
	// not increase: check 2.
	progressRepeats bool
	// pingDelay answers every liveness probe this late: slow but correct.
	pingDelay time.Duration
	// deafAfterUnknownCancel stops answering pings once a cancel for an
	// unknown request came: check 4.
	deafAfterUnknownCancel bool
	// deafAfterCancelN stops answering pings from the Nth cancel (from
	// 1, the probe's): alive but hung after a cancel: checks 3 and 6.
	deafAfterCancelN int
	// forgeNextIDs keeps answering, every millisecond, the three integer
	// ids after the highest it has seen, as if it had read those calls:
	// a client that counts its ids has its calls "answered" before the
	// server read them (issue 27).
	forgeNextIDs bool
	// quickFrom and quickTo number the tools/calls (from 1, the probe's
	// first) that answer at once, with no progress: a call that ends
	// before check 1 can cancel it.
	quickFrom, quickTo int
	// dieOnCancelN closes the connection on the Nth cancel (from 1): the
	// probe's is the first, check 1's the second.
	dieOnCancelN int
	// toolError answers every work call at once with a result that says
	// isError: the probe cannot keep it.
	toolError bool
	// noAskTool lists the work tool only: check 9 finds none that asks.
	noAskTool bool
	// pingOnCall pings the client with each work call: a request of the
	// server's own that no asking tool provoked (check 9's skip says so).
	pingOnCall bool
	// noiseOnLateAnswer sends a line that is no JSON-RPC message on the
	// answer to a request it cancelled: check 9.
	noiseOnLateAnswer bool
	// duplicateOnLateAnswer answers its tools/list once more on that
	// answer, a second response to a request of mcpoke's: check 9.
	duplicateOnLateAnswer bool
}

// workStep is how often the test server's tool reports progress.
const workStep = 25 * time.Millisecond

// workTool is the test server's one tool: it works for seconds (default
// 0.5), reporting progress at every workStep.
const workTool = `{"name":"work","description":"Works a while with progress.","inputSchema":{"type":"object","properties":{"seconds":{"type":"number","default":0.5}}}}`

// misbehavingServer is a raw JSON-RPC server on an in-memory pipe, with
// no session under it, so that it can break any rule a test needs.
type misbehavingServer struct {
	conn transport.Conn
	bad  misbehaviour

	mu    sync.Mutex
	calls map[string]chan struct{} // by id key; closed on cancel
	// asks are the ask tool's elicitations in flight, by their id.
	asks    map[string]*ask
	lastAsk int
	stuck   bool // see stuckAfterLateAnswer
	deaf    bool // see deafAfterUnknownCancel
	maxID   int64
	forging bool            // from the first tools/list on: after the handshake
	nCalls  int             // tools/calls of the work tool so far
	nCancel int             // cancels so far
	listID  json.RawMessage // the last tools/list's id
}

func serveMisbehaving(conn transport.Conn, bad misbehaviour) *misbehavingServer {
	m := &misbehavingServer{conn: conn, bad: bad, calls: map[string]chan struct{}{}, asks: map[string]*ask{}}
	go m.read()
	if bad.forgeNextIDs {
		go m.forge()
	}
	return m
}

type rawMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

func (m *misbehavingServer) send(v any) {
	b, _ := json.Marshal(v)
	_ = m.conn.Send(b)
}

func (m *misbehavingServer) respond(id json.RawMessage, result any) {
	if r, ok := result.(map[string]any); ok && m.bad.modern {
		r["resultType"] = "complete"
	}
	m.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// forge answers the ids after the highest seen until the connection
// ends (see forgeNextIDs).
func (m *misbehavingServer) forge() {
	for {
		time.Sleep(20 * time.Microsecond)
		m.mu.Lock()
		next, on := m.maxID+1, m.forging
		m.mu.Unlock()
		if !on {
			continue
		}
		for id := next; id < next+3; id++ {
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id,
				"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "forged"}}}})
			if m.conn.Send(b) != nil {
				return
			}
		}
	}
}

// pong answers a liveness probe, pingDelay late, unless deaf.
func (m *misbehavingServer) pong(id json.RawMessage, result map[string]any) {
	m.mu.Lock()
	deaf := m.deaf
	m.mu.Unlock()
	if deaf {
		return
	}
	if m.bad.pingDelay > 0 {
		go func() {
			time.Sleep(m.bad.pingDelay)
			m.respond(id, result)
		}()
		return
	}
	m.respond(id, result)
}

// discoverResult is the 2026-07-28 handshake's answer.
func discoverResult() map[string]any {
	return map[string]any{"supportedVersions": []string{"2026-07-28"}, "capabilities": map[string]any{"tools": map[string]any{}},
		"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "misbehaving", "version": "1"}}}
}

func (m *misbehavingServer) read() {
	for {
		msg, err := m.conn.Recv()
		if err != nil {
			return
		}
		var r rawMessage
		if json.Unmarshal(msg.Data, &r) != nil {
			continue
		}
		if n, err := strconv.ParseInt(string(r.ID), 10, 64); err == nil && r.Method != "" {
			m.mu.Lock()
			m.maxID = max(m.maxID, n)
			m.mu.Unlock()
		}
		switch r.Method {
		case "server/discover":
			if !m.bad.modern {
				m.send(map[string]any{"jsonrpc": "2.0", "id": r.ID, "error": map[string]any{"code": -32601, "message": "no such method"}})
				break
			}
			m.pong(r.ID, discoverResult())
		case "initialize":
			m.respond(r.ID, map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "misbehaving", "version": "1"}})
		case "tools/list":
			m.mu.Lock()
			m.forging = true
			m.listID = r.ID
			m.mu.Unlock()
			tools := []json.RawMessage{json.RawMessage(workTool), json.RawMessage(askTool)}
			if m.bad.noAskTool {
				tools = tools[:1]
			}
			m.respond(r.ID, map[string]any{"tools": tools})
		case "ping":
			m.pong(r.ID, map[string]any{})
		case "tools/call":
			if strings.Contains(string(r.Params), `"name":"ask"`) {
				m.startAsk(r.ID)
				break
			}
			m.startCall(r)
		case "":
			m.answered(r.ID)
		case "notifications/cancelled":
			m.cancelled(r.Params)
		}
	}
}

// key is how the server files a call: by the id's JSON text, or with
// looseIDs by its value whatever its type.
func (m *misbehavingServer) key(id json.RawMessage) string {
	if m.bad.looseIDs {
		return strings.Trim(string(id), `"`)
	}
	return string(id)
}

func (m *misbehavingServer) startCall(r rawMessage) {
	if m.bad.toolError {
		m.respond(r.ID, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "no"}}})
		return
	}
	var p struct {
		Arguments struct {
			Seconds *float64 `json:"seconds"`
		} `json:"arguments"`
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(r.Params, &p)
	seconds := 0.5
	if p.Arguments.Seconds != nil {
		seconds = *p.Arguments.Seconds
	}
	cancel := make(chan struct{})
	m.mu.Lock()
	m.calls[m.key(r.ID)] = cancel
	m.nCalls++
	if m.nCalls >= m.bad.quickFrom && m.nCalls <= m.bad.quickTo {
		seconds = 0
	}
	m.mu.Unlock()
	if m.bad.pingOnCall {
		m.send(map[string]any{"jsonrpc": "2.0", "id": "ping-" + string(r.ID), "method": "ping"})
	}
	token := p.Meta.ProgressToken
	if token == nil && m.bad.progressWithoutToken {
		token = r.ID
	}
	go m.work(r.ID, token, int(seconds*float64(time.Second)/float64(workStep)), cancel)
}

func (m *misbehavingServer) work(id, token json.RawMessage, steps int, cancel chan struct{}) {
	defer func() {
		m.mu.Lock()
		if m.calls[m.key(id)] == cancel {
			delete(m.calls, m.key(id))
		}
		m.mu.Unlock()
	}()
	if m.bad.strayProgress {
		m.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
			"params": map[string]any{"progressToken": "never-sent", "progress": 1}})
	}
	cancelled := false
	watch := cancel // nil once a cancel is ignored
	if m.bad.errorUnder > 0 && m.inFlight() >= m.bad.errorUnder {
		m.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603, "message": "overloaded"}})
		return
	}
	step := workStep
	if m.bad.slowUnder > 0 && m.inFlight() >= m.bad.slowUnder {
		step *= 10
	}
	tick := time.NewTicker(step)
	defer tick.Stop()
	for i := 1; i <= steps; i++ {
		if !cancelled {
			select {
			case <-watch:
				if m.bad.ignoreCancel {
					watch = nil // never ready again: work on at the tick's pace
					<-tick.C
					break
				}
				cancelled = true
				if m.bad.answerCancelledUnder > 0 && m.inFlight() >= m.bad.answerCancelledUnder {
					time.Sleep(m.bad.answerDelay)
					m.respond(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": "stopped"}}})
				}
				if m.bad.answerCancelled {
					time.Sleep(m.bad.answerDelay)
					m.respond(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": "stopped"}}})
				}
				if m.bad.failCancelled {
					m.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32800, "message": "request cancelled"}})
				}
				if !m.bad.progressAfterCancel {
					return
				}
			case <-tick.C:
			}
		} else {
			<-tick.C
		}
		if token != nil {
			m.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
				"params": map[string]any{"progressToken": token, "progress": i, "total": steps}})
			if m.bad.progressRepeats {
				m.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
					"params": map[string]any{"progressToken": token, "progress": i, "total": steps}})
			}
		}
	}
	if !cancelled {
		m.respond(id, map[string]any{"content": []any{map[string]any{"type": "text", "text": "done in " + strconv.Itoa(steps) + " steps"}}})
	}
}

func (m *misbehavingServer) cancelled(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(params, &p)
	m.mu.Lock()
	m.nCancel++
	n := m.nCancel
	m.mu.Unlock()
	if m.bad.dieOnCancel || n == m.bad.dieOnCancelN {
		m.conn.Close()
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bad.cancelAll {
		for k, c := range m.calls {
			close(c)
			delete(m.calls, k)
		}
		return
	}
	if m.bad.deafAfterCancelN > 0 && n >= m.bad.deafAfterCancelN {
		m.deaf = true
	}
	c, ok := m.calls[m.key(p.RequestID)]
	if !ok && m.bad.deafAfterUnknownCancel {
		m.deaf = true
	}
	if !ok {
		if m.bad.answerInvalidCancel {
			m.send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32602, "message": "unknown request"}})
		}
		return
	}
	close(c)
	if m.bad.answerCancelledUnder == 0 {
		delete(m.calls, m.key(p.RequestID))
	}
}

// inFlight is how many calls are at work: with answerCancelledUnder a
// cancelled call counts until its worker ends.
func (m *misbehavingServer) inFlight() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.calls)
}
