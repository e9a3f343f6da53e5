package check

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// Answerer is mcpoke check's side of the requests a server sends: it
// declares sampling and form elicitation, so that a server whose tools
// ask their client anything asks, and answers at once (an elicitation
// declined, a fixed sampling text), except the one question check 9
// holds: that one is answered only when the check says, even after the
// server cancelled it (the answer that crosses the server's cancel).
// Install it before the connection initializes (see Prepare) and pass
// it in Options.
type Answerer struct {
	mu      sync.Mutex
	holding bool
	held    chan heldQuestion
	release chan struct{}
	cancels []serverCancel
}

// heldQuestion is the server's request check 9 holds.
type heldQuestion struct {
	id     session.ID
	method string
	ref    session.Ref
	at     time.Time
}

// serverCancel is a notifications/cancelled the server sent.
type serverCancel struct {
	requestID json.RawMessage
	reason    string
	at        time.Time
	params    json.RawMessage
}

// NewAnswerer returns the answering side for one run.
func NewAnswerer() *Answerer {
	return &Answerer{held: make(chan heldQuestion, 1), release: make(chan struct{})}
}

// answerFeatures are what the run declares: enough for a server to ask.
var answerFeatures = mcp.ClientFeatures{Sampling: true, ElicitForm: true}

// Prepare declares sampling and elicitation in o and installs the
// handlers that answer them, keeping o's other handlers.
func (a *Answerer) Prepare(o *connect.Options) {
	cfg := &o.Session
	if cfg.Handlers == nil {
		cfg.Handlers = map[string]session.Handler{}
	}
	if cfg.Notifications == nil {
		cfg.Notifications = map[string]session.NotificationHandler{}
	}
	cfg.Handlers["sampling/createMessage"] = a.answer
	cfg.Handlers["elicitation/create"] = a.answer
	next := cfg.Notifications["notifications/cancelled"]
	cfg.Notifications["notifications/cancelled"] = func(s *session.Session, params json.RawMessage) {
		a.cancelled(params)
		if next != nil {
			next(s, params)
		}
	}
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(o.Capabilities, &caps)
	if caps == nil {
		caps = map[string]json.RawMessage{}
	}
	var ours map[string]json.RawMessage
	_ = json.Unmarshal(answerFeatures.ForVersion(o.Protocol).Capabilities(o.Protocol), &ours)
	for k, v := range ours {
		caps[k] = v
	}
	o.Capabilities, _ = json.Marshal(caps)
}

// answer answers a sampling or elicitation request: at once, or, when
// check 9 holds it, once released, even if the server cancelled it.
func (a *Answerer) answer(ctx context.Context, in *session.Incoming) (any, error) {
	a.mu.Lock()
	hold := a.holding
	if hold {
		// The crossing answer is the point: the session must send it.
		in.IgnoreCancellation()
		a.holding = false
		a.held <- heldQuestion{id: in.ID, method: in.Method, ref: in.Ref(), at: time.Now()} // room for one
	}
	a.mu.Unlock()
	if hold {
		select {
		case <-a.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if in.Method == "sampling/createMessage" {
		return map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "mcpoke check has no model"},
			"model": "mcpoke-check", "stopReason": "endTurn"}, nil
	}
	return map[string]any{"action": "decline"}, nil
}

// hold makes the next request the server sends wait for release.
func (a *Answerer) hold() {
	a.mu.Lock()
	a.holding = true
	a.mu.Unlock()
}

// drop stops waiting for a request to hold, and answers one that came
// too late to be used.
func (a *Answerer) drop() {
	a.mu.Lock()
	a.holding = false
	stale := false
	select {
	case <-a.held:
		stale = true
	default:
	}
	a.mu.Unlock()
	if stale {
		a.answerHeld()
	}
}

// answerHeld releases the held request's answer.
func (a *Answerer) answerHeld() {
	select {
	case a.release <- struct{}{}:
	case <-time.After(time.Second): // its handler already ended
	}
}

func (a *Answerer) cancelled(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	_ = json.Unmarshal(params, &p)
	a.mu.Lock()
	a.cancels = append(a.cancels, serverCancel{requestID: p.RequestID, reason: p.Reason, at: time.Now(), params: params})
	a.mu.Unlock()
}

// cancelsSince are the server's cancels that came at or after t.
func (a *Answerer) cancelsSince(t time.Time) []serverCancel {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []serverCancel
	for _, c := range a.cancels {
		if !c.at.Before(t) {
			out = append(out, c)
		}
	}
	return out
}
