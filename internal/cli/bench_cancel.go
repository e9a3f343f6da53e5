package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// cancelStats: how quickly a cancel reaches the wire, and what the
// server did after it.
type cancelStats struct {
	Probes int `json:"probes"`
	// Time from calling Cancel to the notifications/cancelled frame
	// reaching the tap, just before it is written.
	WriteP50Ms float64 `json:"writeP50Ms"`
	WriteMaxMs float64 `json:"writeMaxMs"`
	// AnsweredFirst counts probes whose answer beat the cancel: there
	// was nothing left to cancel.
	AnsweredFirst int `json:"answeredBeforeCancel"`
	LateResponses int `json:"lateResponses"`
	LateErrors    int `json:"lateErrors"`
	LateProgress  int `json:"lateProgress"`
	// watched is how long late traffic was watched for: --watch, or
	// less when interrupted.
	watched time.Duration
}

// probeCancel starts n calls one after another, cancels each at once,
// then watches for late traffic. Once ctx ends (mcpoke is interrupted) it
// starts no more probes and stops watching: Probes says how many ran.
func probeCancel(ctx context.Context, c *connect.Conn, params json.RawMessage, n int, watch time.Duration) cancelStats {
	written := newCancelWatch(c)
	var refs []session.Ref
	var writes []time.Duration
	st := cancelStats{}
	for range n {
		if ctx.Err() != nil {
			break
		}
		call, err := c.Session.Call(ctx, "tools/call", params, session.CallOptions{Timeout: benchCallTimeout})
		if err != nil {
			break
		}
		st.Probes++
		t0 := time.Now()
		if err := c.Session.Request(call.Ref()).Cancel("mcpoke bench: cancel probe"); err != nil {
			st.AnsweredFirst++
			continue
		}
		if at, ok := written.wait(call.ID(), time.Second); ok {
			writes = append(writes, at.Sub(t0))
		}
		refs = append(refs, call.Ref())
	}
	timer := time.NewTimer(watch)
	defer timer.Stop()
	watchFrom := time.Now()
	select {
	case <-timer.C:
	case <-c.Session.Done():
	case <-ctx.Done():
	}
	st.watched = time.Since(watchFrom)
	for _, ref := range refs {
		// Counted, not listed: the list of late frames is capped.
		info, _ := c.Session.Request(ref).Info()
		st.LateResponses += info.LateKinds[session.LateResponse]
		st.LateErrors += info.LateKinds[session.LateError]
		st.LateProgress += info.LateKinds[session.LateProgress]
	}
	s := summarize(writes)
	st.WriteP50Ms, st.WriteMaxMs = s.P50Ms, s.MaxMs
	return st
}

// cancelWatch notes when each notifications/cancelled passes the tap.
type cancelWatch struct {
	mu   sync.Mutex
	cond *sync.Cond
	at   map[string]time.Time
}

func newCancelWatch(c *connect.Conn) *cancelWatch {
	w := &cancelWatch{at: map[string]time.Time{}}
	w.cond = sync.NewCond(&w.mu)
	c.Observe(func(r wire.Record) {
		if r.Dir != wire.Out || !bytes.Contains(r.Data, []byte(`"notifications/cancelled"`)) {
			return
		}
		var m struct {
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if json.Unmarshal(r.Data, &m) != nil {
			return
		}
		w.mu.Lock()
		w.at[string(m.Params.RequestID)] = r.At
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	return w
}

// wait returns when the cancel for id passed the tap, waiting up to d.
func (w *cancelWatch) wait(id session.ID, d time.Duration) (time.Time, bool) {
	timer := time.AfterFunc(d, func() {
		w.mu.Lock()
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer timer.Stop()
	deadline := time.Now().Add(d)
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		if at, ok := w.at[id.String()]; ok {
			return at, true
		}
		if !time.Now().Before(deadline) {
			return time.Time{}, false
		}
		w.cond.Wait()
	}
}
