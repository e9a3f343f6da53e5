package demo

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/mcpoke/mcpoke/session"
)

// callImmediately answers a tools/call for a tool that answers at once
// (echo, fail) on the session's reader: its name as the session read it,
// params and their _meta read in one pass (readToolCall), the arguments
// checked as bytes (flatCheck) and the result appended to one buffer. No goroutine, no
// context, no second parse. A request of protocol 2026-07-28 gets what
// eraAware adds to its result. Anything it is not sure to answer as
// callTool would, through eraAware (arguments to reject, a task, a modern
// version the demo does not speak, params it cannot read), is declined
// for them, and they say what is wrong.
func (srv *server) callImmediately(in *session.Incoming) (any, error, bool) {
	return srv.answerNow(in.Tool(), in.Params)
}

// answerNow is callImmediately for the tool named name.
func (srv *server) answerNow(name string, params []byte) (any, error, bool) {
	t := srv.find(name)
	if t == nil || t.immediate == nil || t.flat == nil {
		return nil, nil, false
	}
	p, ok := readToolCall(params)
	if !ok || p.meta.version != nil && !p.meta.speaksModern() {
		return nil, nil, false
	}
	args := p.arguments
	if args == nil || string(args) == "null" {
		args = emptyArgs
	}
	if !t.flat.valid(args) {
		return nil, nil, false
	}
	modern := p.meta.version != nil
	room := resultRoom + len(args)
	if modern {
		room += len(session.MetaServerInfo) + len(serverInfoJSON()) + 40
	}
	b, err := t.immediate(args, openResult(make([]byte, 0, room), modern))
	if err != nil {
		return nil, err, true
	}
	return json.RawMessage(closeResult(b, modern)), nil, true
}

// resultRoom is room enough for an immediate tool's result besides the
// arguments it echoes and the _meta of 2026-07-28, so that it is one
// allocation.
const resultRoom = 112

var emptyArgs = []byte(`{}`)

// serverInfoJSON is who the demo says it is in modern results, encoded
// once: it never changes while the demo runs.
var serverInfoJSON = sync.OnceValue(func() json.RawMessage {
	info, _ := json.Marshal(demoImplementation())
	return info
})

// speaksModern reports whether a request's _meta names a modern version
// the demo speaks and holds what ReadRequestMeta reads. False for
// anything eraAware would answer otherwise: a version it does not speak,
// no clientCapabilities object, or a _meta ReadRequestMeta could not read (it then takes the request
// for legacy).
func (m *requestMeta) speaksModern() bool {
	if !speaksVersion(m.version) || !m.hasCaps {
		return false
	}
	if m.logLevel != nil && m.logLevel[0] != '"' && string(m.logLevel) != "null" {
		return false
	}
	info := m.clientInfo
	if last := lastClientInfo.Load(); info == nil || last != nil && string(info) == *last {
		return true
	}
	var impl *session.Implementation
	if json.Unmarshal(info, &impl) != nil {
		return false
	}
	s := string(info)
	lastClientInfo.Store(&s)
	return true
}

// lastClientInfo is the last clientInfo that decoded: a client sends the
// same one with every request, so each is decoded once.
var lastClientInfo atomic.Pointer[string]

// speaksVersion reports whether raw, a JSON string, is a modern version
// the demo speaks; versions have no escapes, so a string with one is not.
func speaksVersion(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	v := raw[1 : len(raw)-1]
	for _, m := range session.Era2026Versions {
		if string(v) == m && session.IsEra2026(m) {
			return true
		}
	}
	return false
}
