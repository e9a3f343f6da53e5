package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// The attach socket's control messages. A client (mcpoke attach, its
// TUI) may write, one JSON object a line, at any time:
//
//	{"control":"card"}                           the host's report card now
//	{"control":"card","session":"s2"}            the card of host session s2 alone
//	{"control":"kill","id":3,"reason":"why"}     cancel the host's pending request 3
//	{"control":"kill-all","reason":"why"}        cancel all of the host's pending requests
//	{"control":"hold","id":3}                    hold the answer to pending request 3 when it comes
//	{"control":"release","id":3}                 pass the held answer to 3 on to the host
//	{"control":"drop","id":3}                    drop the held answer to 3: the host never gets it
//
// "id" is the request's id as the host sent it: 3 and "3" are different
// requests. "reason" is optional. The proxy answers each message with one
// line of its own, put between whole transcript lines of the client's
// stream and always starting {"reply": so that a client can pick it out
// without parsing the others:
//
//	{"reply":"card","card":{...CardReport...}}
//	{"reply":"kill","done":["3"]}
//	{"reply":"kill","error":"request 3 is not pending (answered)"}
//
// Only the client that asked gets the reply. The cancels themselves show
// to everyone as relay lines (EventProxyCancelled) and in the rows
// (Row.CancelledBy "proxy").
const (
	ControlCard    = "card"
	ControlKill    = "kill"
	ControlKillAll = "kill-all"
	ControlHold    = "hold"
	ControlRelease = "release"
	ControlDrop    = "drop"
)

// ControlRequest is one control message from an attached client.
type ControlRequest struct {
	Control string          `json:"control"`
	ID      json.RawMessage `json:"id,omitempty"`
	// Session is the host session's label (s1, s2, ...) over HTTP, where
	// sessions may use the same ids; "" on stdio.
	Session string `json:"session,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// RequestRef names one of the host's requests: its id as JSON text and,
// over HTTP, its session's label ("" on stdio).
type RequestRef struct{ Session, ID string }

// String is the id, after its session's label when it has one: 3, s2:3.
func (r RequestRef) String() string {
	if r.Session == "" {
		return r.ID
	}
	return r.Session + ":" + r.ID
}

// ControlReply is the proxy's answer to one control message. Reply comes
// first in its JSON, which clients rely on.
type ControlReply struct {
	Reply string      `json:"reply"`
	Card  *CardReport `json:"card,omitempty"`
	// Done lists the requests the message acted on: ids as JSON text,
	// after their session's label over HTTP (s2:3).
	Done  []string `json:"done,omitempty"`
	Error string   `json:"error,omitempty"`
}

// maxControlLine bounds one control message.
const maxControlLine = 64 << 10

// Switch is what a running relay lets the controls do to the host's
// requests; ids are JSON text.
type Switch interface {
	// Kill cancels one of the host's pending requests on its behalf, in
	// the form its era and transport call for.
	Kill(ref RequestRef, reason string) error
	// Hold keeps the answer to a pending request from the host when it
	// comes; Release passes a held answer on; Drop forgets it.
	Hold(ref RequestRef) error
	Release(ref RequestRef) error
	Drop(ref RequestRef) error
}

// Controls carries out the attach socket's control messages for one
// proxy. The relay sets its Killer once it runs; until then, and for a
// relay that cannot kill, kill answers an error.
type Controls struct {
	Card  *Card
	Table *Table

	mu sync.Mutex
	sw Switch
}

// SetSwitch is how the running relay hands the controls its switch (nil
// when it ends).
func (c *Controls) SetSwitch(s Switch) {
	c.mu.Lock()
	c.sw = s
	c.mu.Unlock()
}

func (c *Controls) current() Switch {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sw
}

// Handle carries out one control message.
func (c *Controls) Handle(req ControlRequest) ControlReply {
	rep := ControlReply{Reply: req.Control}
	switch req.Control {
	case ControlCard:
		if c.Card == nil {
			rep.Error = "this proxy keeps no report card"
			return rep
		}
		if req.Session == "" {
			rep.Card = c.Card.Report()
			return rep
		}
		card, ok := c.Card.ReportSession(req.Session)
		if !ok {
			rep.Error = fmt.Sprintf("the card has no host session %q", req.Session)
			return rep
		}
		rep.Card = card
	case ControlKill:
		if len(req.ID) == 0 {
			rep.Error = `kill needs the request's "id"`
			return rep
		}
		ref := RequestRef{req.Session, compact(req.ID)}
		if err := c.kill(ref, req.Reason); err != nil {
			rep.Error = err.Error()
			return rep
		}
		rep.Done = []string{ref.String()}
	case ControlKillAll:
		for _, r := range c.pending() {
			if err := c.kill(r, req.Reason); err == nil {
				rep.Done = append(rep.Done, r.String())
			}
		}
		if len(rep.Done) == 0 {
			rep.Error = "the host has no pending request"
		}
	case ControlHold, ControlRelease, ControlDrop:
		if len(req.ID) == 0 {
			rep.Error = req.Control + ` needs the request's "id"`
			return rep
		}
		ref := RequestRef{req.Session, compact(req.ID)}
		sw := c.current()
		if sw == nil {
			rep.Error = "this proxy's relay cannot hold answers (not running yet)"
			return rep
		}
		var err error
		switch req.Control {
		case ControlHold:
			if c.Table != nil {
				if r, ok := c.Table.Row(wire.Out, ref); !ok || r.State != Pending {
					rep.Error = fmt.Sprintf("request %s is not pending", ref)
					return rep
				}
			}
			err = sw.Hold(ref)
		case ControlRelease:
			err = sw.Release(ref)
		default:
			err = sw.Drop(ref)
		}
		if err != nil {
			rep.Error = err.Error()
			return rep
		}
		rep.Done = []string{ref.String()}
	default:
		rep.Error = fmt.Sprintf("unknown control %q: card, kill, kill-all, hold, release or drop", req.Control)
	}
	return rep
}

// inFlight is a Switch that knows the host's pending requests itself
// (over HTTP, where several sessions may use the same ids).
type inFlight interface{ Pending() []RequestRef }

func (c *Controls) pending() []RequestRef {
	var ids []RequestRef
	if f, ok := c.current().(inFlight); ok {
		return f.Pending()
	}
	if c.Table == nil {
		return nil
	}
	for _, r := range c.Table.Rows() {
		if r.From == wire.Out && r.State == Pending && r.Method != "initialize" {
			ids = append(ids, RequestRef{r.Session, r.ID})
		}
	}
	return ids
}

func (c *Controls) kill(ref RequestRef, reason string) error {
	k := c.current()
	if k == nil {
		return fmt.Errorf("this proxy cannot cancel requests (not running yet, or its transport has no kill switch)")
	}
	if _, ok := k.(inFlight); !ok && c.Table != nil {
		if r, ok := c.Table.Row(wire.Out, ref); !ok {
			return fmt.Errorf("the host sent no request %s (ids are JSON: 3 and \"3\" differ)", ref)
		} else if r.State != Pending {
			return fmt.Errorf("request %s is not pending (%s)", ref, r.State)
		}
	}
	return k.Kill(ref, reason)
}

// handleControlLine parses one line from a client and returns the reply
// line to send back.
func (c *Controls) handleControlLine(line []byte) []byte {
	var req ControlRequest
	var rep ControlReply
	if err := json.Unmarshal(bytes.TrimSpace(line), &req); err != nil {
		rep = ControlReply{Reply: "error", Error: "a control message is one JSON object a line: " + err.Error()}
	} else {
		rep = c.Handle(req)
	}
	b, _ := json.Marshal(rep)
	return append(b, '\n')
}
