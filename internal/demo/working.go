package demo

import (
	"encoding/json"
	"sync"

	"github.com/mcpoke/mcpoke/session"
)

// WorkingMeta is the _meta key of the demo's report of leftover work: a
// tools/call whose _meta has it (any value) gets, in its result's _meta
// under the same key, the ids of the other tools/call the server was
// still working on when this one arrived. mcpoke check asks for it after
// closing a call's stream (2026-07-28 over HTTP): a server that stopped
// the call's work no longer lists it. Without the key nothing changes.
const WorkingMeta = "mcpoke/working"

// working is the tools/call a server is working on. It lives with the
// task store, so that it is shared as tasks are: by every 2026-07-28
// request over HTTP, which have no session.
type working struct {
	mu  sync.Mutex
	ids map[*session.Incoming]json.RawMessage
}

// start records in as being worked on until the returned func runs;
// with the ids of the others when in asked for them.
func (w *working) start(in *session.Incoming) (others []json.RawMessage, done func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ids == nil {
		w.ids = map[*session.Incoming]json.RawMessage{}
	}
	others = []json.RawMessage{}
	for _, id := range w.ids {
		others = append(others, id)
	}
	w.ids[in] = json.RawMessage(in.ID.String())
	return others, func() {
		w.mu.Lock()
		delete(w.ids, in)
		w.mu.Unlock()
	}
}

// asksWorking says whether a tools/call's _meta asks for the report.
func asksWorking(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	_, ok := p.Meta[WorkingMeta]
	return ok
}

// withWorking adds the report to a tool's result.
func withWorking(res any, others []json.RawMessage) any {
	b, err := json.Marshal(res)
	var obj map[string]json.RawMessage
	if err != nil || json.Unmarshal(b, &obj) != nil || obj == nil {
		return res
	}
	meta := map[string]json.RawMessage{}
	_ = json.Unmarshal(obj["_meta"], &meta)
	meta[WorkingMeta], _ = json.Marshal(others)
	obj["_meta"], _ = json.Marshal(meta)
	return obj
}
