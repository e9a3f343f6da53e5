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
	// servers do): check 1.
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
	// keepOwnRequest leaves its elicitation open when the call that
	// asked it is cancelled (as the reference server does): check 9.
	keepOwnRequest bool
	// ownCancelAsString cancels its request 1 as "1": check 9.
	ownCancelAsString bool
	// errorOnLateAnswer answers the answer to a request it cancelled
	// with an error response: check 9.
	errorOnLateAnswer bool
	// dieOnLateAnswer closes the connection on that answer: check 9.
	dieOnLateAnswer bool
	// stuckAfterLateAnswer never answers an ask call again once that
	// answer came: check 9.
	stuckAfterLateAnswer bool
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
}

func serveMisbehaving(conn transport.Conn, bad misbehaviour) *misbehavingServer {
	m := &misbehavingServer{conn: conn, bad: bad, calls: map[string]chan struct{}{}, asks: map[string]*ask{}}
	go m.read()
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
	m.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
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
		switch r.Method {
		case "initialize":
			m.respond(r.ID, map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "misbehaving", "version": "1"}})
		case "tools/list":
			m.respond(r.ID, map[string]any{"tools": []json.RawMessage{json.RawMessage(workTool), json.RawMessage(askTool)}})
		case "ping":
			m.respond(r.ID, map[string]any{})
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
	m.mu.Unlock()
	go m.work(r.ID, p.Meta.ProgressToken, int(seconds*float64(time.Second)/float64(workStep)), cancel)
}

func (m *misbehavingServer) work(id, token json.RawMessage, steps int, cancel chan struct{}) {
	defer func() {
		m.mu.Lock()
		if m.calls[m.key(id)] == cancel {
			delete(m.calls, m.key(id))
		}
		m.mu.Unlock()
	}()
	cancelled := false
	watch := cancel // nil once a cancel is ignored
	tick := time.NewTicker(workStep)
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
	if m.bad.dieOnCancel {
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
	c, ok := m.calls[m.key(p.RequestID)]
	if !ok {
		if m.bad.answerInvalidCancel {
			m.send(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32602, "message": "unknown request"}})
		}
		return
	}
	close(c)
	delete(m.calls, m.key(p.RequestID))
}
