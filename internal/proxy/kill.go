package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// EventProxyCancelled starts the relay event that the proxy cancelled a
// host's request on the host's behalf (the kill switch); the request's
// JSON id follows, to the end of the event, as EventStreamClosed's does.
const EventProxyCancelled = "mcpoke proxy cancelled, on the host's behalf, request "

// ProxyCancelledID is the id in an EventProxyCancelled event.
func ProxyCancelledID(event string) (string, bool) {
	return strings.CutPrefix(event, EventProxyCancelled)
}

// KillOptions says what the kill switch does besides cancelling the
// request upstream.
type KillOptions struct {
	// Silent: the host gets no answer for a request the proxy cancelled
	// (--on-kill silent); otherwise it gets KillErrorCode.
	Silent bool
	// ForwardLate passes on the server's answer to a request the proxy
	// cancelled, when one comes (--forward-late); otherwise it is
	// recorded and dropped.
	ForwardLate bool
}

// KillErrorCode is the JSON-RPC error code of the answer the host gets
// for a request the proxy cancelled: LSP's RequestCancelled, which MCP
// has no code of its own for.
const KillErrorCode = -32800

// ProxyWords starts every relay event that is the proxy's own doing
// (kill switch, faults): none of them ends a request but the kill.
const ProxyWords = "mcpoke proxy "

// Relay events of the kill switch, each followed by a frame, or an id
// for EventLateDropped.
const (
	EventProxySentServer = "mcpoke proxy sent the server: "
	EventProxyAnswered   = "mcpoke proxy answered the host: "
	EventLateDropped     = "mcpoke proxy dropped (--forward-late passes it) the server's late answer to request "
)

// cancelFrame is the notification that cancels id (JSON text, kept as
// the host wrote it: 3 stays a number, "3" a string).
func cancelFrame(id, reason string) []byte {
	params := map[string]any{"requestId": json.RawMessage(id)}
	if reason != "" {
		params["reason"] = reason
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})
	return append(b, '\n')
}

// killAnswer is the error the host gets for a request the proxy cancelled.
func killAnswer(id, reason string) []byte {
	msg := "mcpoke proxy cancelled this request on the host's behalf (kill switch)"
	if reason != "" {
		msg += ": " + reason
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id),
		"error": map[string]any{"code": KillErrorCode, "message": msg}})
	return append(b, '\n')
}

// stdioKiller is the kill switch of the stdio relay: its frames go
// between whole lines of each direction, and the answers to the
// requests it cancelled are dropped on their way to the host.
type stdioKiller struct {
	opts     KillOptions
	toServer *lineGate
	toHost   *lineGate
	event    func(string)

	faults Faults

	mu     sync.Mutex
	killed map[string]bool // ids whose answer is still to be dropped
	held   map[string]*heldAnswer
	toHold map[string]bool // ids whose answer is to be held when it comes
	// methods of the host's open requests, by id (for AnswerAfterCancel)
	methods map[string]string
}

// watch makes the host's gate drop the answers to killed requests and
// carry out the faults.
func (k *stdioKiller) watch() {
	k.killed = map[string]bool{}
	k.held = map[string]*heldAnswer{}
	k.toHold = map[string]bool{}
	k.methods = map[string]string{}
	k.toHost.mu.Lock()
	k.toHost.active = func() bool {
		if k.faults.any() {
			return true
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		return len(k.killed) > 0 || len(k.toHold) > 0
	}
	k.toHost.drop = k.filter
	k.toHost.mu.Unlock()
}

// Kill cancels id upstream with notifications/cancelled and answers the
// host as KillOptions say.
func (k *stdioKiller) Kill(ref RequestRef, reason string) error {
	id := ref.ID
	frame := cancelFrame(id, reason)
	k.event(EventProxyCancelled + id)
	k.event(EventProxySentServer + string(bytes.TrimSpace(frame)))
	k.mu.Lock()
	if !k.opts.ForwardLate {
		k.killed[id] = true
	}
	if h := k.held[id]; h != nil {
		// A held answer to a killed request is late: dropped, or
		// passed on after the cancel with --forward-late.
		delete(k.held, id)
		h.timer.Stop()
		if k.opts.ForwardLate {
			k.event(EventReleased + id)
			defer k.toHost.inject(h.line)
		} else {
			delete(k.killed, id)
			k.event(EventLateDropped + id)
		}
	}
	k.mu.Unlock()
	if err := k.toServer.inject(frame); err != nil {
		return fmt.Errorf("the server no longer reads: %w", err)
	}
	if !k.opts.Silent {
		ans := killAnswer(id, reason)
		k.event(EventProxyAnswered + string(bytes.TrimSpace(ans)))
		if err := k.toHost.inject(ans); err != nil {
			return fmt.Errorf("cancelled upstream, but the host no longer reads: %w", err)
		}
	}
	return nil
}
