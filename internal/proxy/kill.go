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

// Relay events of the kill switch, each followed by a frame.
const (
	EventProxySentServer = "mcpoke proxy sent the server: "
	EventProxyAnswered   = "mcpoke proxy answered the host: "
	EventLateDropped     = "the server's late answer to a request mcpoke proxy cancelled was not passed on (--forward-late passes it): request "
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

	mu     sync.Mutex
	killed map[string]bool // ids whose answer is still to be dropped
}

// watch makes the host's gate drop the answers to killed requests.
func (k *stdioKiller) watch() {
	k.killed = map[string]bool{}
	if k.opts.ForwardLate {
		return
	}
	k.toHost.mu.Lock()
	k.toHost.active = func() bool {
		k.mu.Lock()
		defer k.mu.Unlock()
		return len(k.killed) > 0
	}
	k.toHost.drop = func(line []byte) bool {
		ms := messages(line)
		if len(ms) != 1 || ms[0].Method != "" || len(ms[0].ID) == 0 {
			return false
		}
		id := compact(ms[0].ID)
		k.mu.Lock()
		hit := k.killed[id]
		delete(k.killed, id)
		k.mu.Unlock()
		if hit {
			k.event(EventLateDropped + id)
		}
		return hit
	}
	k.toHost.mu.Unlock()
}

func (k *stdioKiller) kill(id, reason string) error {
	frame := cancelFrame(id, reason)
	k.event(EventProxyCancelled + id)
	k.event(EventProxySentServer + string(bytes.TrimSpace(frame)))
	if !k.opts.ForwardLate {
		k.mu.Lock()
		k.killed[id] = true
		k.mu.Unlock()
	}
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
