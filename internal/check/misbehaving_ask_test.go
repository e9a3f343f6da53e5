package check

import (
	"encoding/json"
	"strconv"
)

// askTool is the test server's tool that asks the client: it sends
// elicitation/create and answers the call with the client's answer.
const askTool = `{"name":"ask","description":"Asks the client with elicitation/create.","inputSchema":{"type":"object"}}`

// ask is one elicitation the ask tool sent for a call.
type ask struct {
	call      json.RawMessage
	cancelled bool
}

// startAsk sends the client an elicitation for call id; cancelling the
// call cancels it (see cancelAsk).
func (m *misbehavingServer) startAsk(call json.RawMessage) {
	m.mu.Lock()
	if m.stuck {
		m.mu.Unlock()
		return
	}
	m.lastAsk++
	id := strconv.Itoa(m.lastAsk)
	a := &ask{call: call}
	m.asks[id] = a
	cancel := make(chan struct{})
	m.calls[m.key(call)] = cancel
	m.mu.Unlock()
	m.send(map[string]any{"jsonrpc": "2.0", "id": m.lastAsk, "method": "elicitation/create",
		"params": map[string]any{"message": "Name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}})
	go func() {
		<-cancel
		m.cancelAsk(id, a)
	}()
}

// cancelAsk: the call that asked was cancelled; a well-behaved server
// cancels its question.
func (m *misbehavingServer) cancelAsk(id string, a *ask) {
	m.mu.Lock()
	a.cancelled = true
	m.mu.Unlock()
	if m.bad.answerCancelled {
		m.respond(a.call, map[string]any{"content": []any{map[string]any{"type": "text", "text": "stopped"}}})
	}
	if m.bad.keepOwnRequest {
		return
	}
	var requestID any = json.RawMessage(id)
	switch {
	case m.bad.ownCancelAsString:
		requestID = id
	case m.bad.ownCancelNamesCall:
		requestID = a.call
	case m.bad.ownCancelUnknown:
		requestID = 9999
	}
	m.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": requestID, "reason": "the call was cancelled"}})
}

// answered: the client answered elicitation id.
func (m *misbehavingServer) answered(id json.RawMessage) {
	m.mu.Lock()
	a := m.asks[string(id)]
	delete(m.asks, string(id))
	if a != nil && !a.cancelled {
		delete(m.calls, m.key(a.call))
	}
	m.mu.Unlock()
	switch {
	case a == nil:
	case !a.cancelled:
		m.respond(a.call, map[string]any{"content": []any{map[string]any{"type": "text", "text": "answered"}}})
	case m.bad.dieOnLateAnswer:
		m.conn.Close()
	case m.bad.deafAfterLateAnswer:
		m.mu.Lock()
		m.deaf = true
		m.mu.Unlock()
	case m.bad.stuckAfterLateAnswer:
		m.mu.Lock()
		m.stuck = true
		m.mu.Unlock()
	case m.bad.noiseOnLateAnswer:
		_ = m.conn.Send([]byte(`{"jsonrpc":"2.0","result":`))
	case m.bad.duplicateOnLateAnswer:
		m.mu.Lock()
		list := m.listID
		m.mu.Unlock()
		m.respond(list, map[string]any{"tools": []any{}})
	case m.bad.errorOnLateAnswer:
		m.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32600, "message": "response to a cancelled request"}})
	}
}
