package cli

import (
	"context"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/session"
)

// cancelStats: how quickly a cancel reaches the wire, and what the
// server did after it.
type cancelStats struct {
	Probes int `json:"probes"`
	// Time from deciding the cancel to the notifications/cancelled frame
	// being written (RequestInfo.CancelAt to CancelSentAt).
	WriteP50Ms float64 `json:"writeP50Ms"`
	WriteMaxMs float64 `json:"writeMaxMs"`
	// AnsweredFirst counts probes whose answer beat the cancel: there
	// was nothing left to cancel.
	AnsweredFirst int `json:"answeredBeforeCancel"`
	LateResponses int `json:"lateResponses"`
	LateErrors    int `json:"lateErrors"`
	LateProgress  int `json:"lateProgress"`
	// ByStreamClose: the cancels closed each request's stream (2026-07-28
	// over Streamable HTTP), so nothing late could be seen.
	ByStreamClose bool `json:"byStreamClose"`
	// watched is how long late traffic was watched for: --watch, or
	// less when interrupted.
	watched time.Duration
}

// probeCancel starts n calls one after another, cancels each at once,
// then watches for late traffic. Once ctx ends (mcpoke is interrupted) it
// starts no more probes and stops watching: Probes says how many ran.
func probeCancel(ctx context.Context, c *connect.Conn, req benchRequest, n int, watch time.Duration) cancelStats {
	var refs []session.Ref
	var writes []time.Duration
	st := cancelStats{}
	for range n {
		if ctx.Err() != nil {
			break
		}
		call, err := c.Session.Call(ctx, "tools/call", req.params, req.options())
		if err != nil {
			break
		}
		st.Probes++
		req := c.Session.Request(call.Ref())
		if err := req.Cancel("mcpoke bench: cancel probe"); err != nil {
			st.AnsweredFirst++
			continue
		}
		// Cancel returns once the notification was written.
		if info, ok := req.Info(); ok && !info.CancelSentAt.IsZero() {
			writes = append(writes, info.CancelSentAt.Sub(info.CancelAt))
			st.ByStreamClose = st.ByStreamClose || info.CancelWire.ByStreamClose
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
