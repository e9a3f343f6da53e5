package proxy

import (
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// Faults provoke a host over stdio. Each touches only the frames it
// names; every other byte passes as it came (the gate goes line by line
// while one is on, and writes each line unchanged).
type Faults struct {
	// Delay holds every answer (a response from the server) this long.
	Delay time.Duration
	// DropProgress drops the server's notifications/progress.
	DropProgress bool
	// AnswerAfterCancel holds each answer to a tools/call until the host
	// cancels its request, or MaxHold passes, then passes it on: the late
	// answer a host must ignore, on demand. Other answers (initialize,
	// lists) pass, or the host would never get to call a tool.
	AnswerAfterCancel bool
	// MaxHold bounds AnswerAfterCancel's and the hold control's wait; 0
	// means DefaultMaxHold.
	MaxHold time.Duration
}

// DefaultMaxHold is how long a held answer waits at most.
const DefaultMaxHold = 5 * time.Minute

func (f Faults) any() bool { return f.Delay > 0 || f.DropProgress || f.AnswerAfterCancel }

func (f Faults) maxHold() time.Duration {
	if f.MaxHold > 0 {
		return f.MaxHold
	}
	return DefaultMaxHold
}

// Relay events of the faults; an id follows.
const (
	EventHeld     = "mcpoke proxy holds the answer to request "
	EventReleased = "mcpoke proxy passed on the held answer to request "
	EventDropped  = "mcpoke proxy dropped the held answer to request "
	// EventProgressDropped follows each progress notification
	// --drop-progress kept from the host (its token follows): the frame
	// is recorded as the server sent it, and this says the host never
	// got it.
	EventProgressDropped = "mcpoke proxy dropped (--drop-progress) the server's notifications/progress with token "
)

// heldAnswer is an answer line the proxy keeps from the host for now.
type heldAnswer struct {
	line  []byte
	timer *time.Timer
}

// filter is the host gate's drop: it says whether a whole line from the
// server is kept from the host now (dropped, or held to be injected
// later). It runs with the gate locked.
func (k *stdioKiller) filter(line []byte) bool {
	ms := messages(line)
	if len(ms) != 1 {
		return false
	}
	m := ms[0]
	if m.Method == "notifications/progress" {
		if k.faults.DropProgress {
			k.event(EventProgressDropped + compact(m.p.ProgressToken))
		}
		return k.faults.DropProgress
	}
	if m.Method != "" || len(m.ID) == 0 {
		return false
	}
	id := compact(m.ID)
	k.mu.Lock()
	defer k.mu.Unlock()
	defer delete(k.methods, id)
	if k.killed[id] {
		delete(k.killed, id)
		k.event(EventLateDropped + id)
		return true
	}
	switch {
	case k.toHold[id]:
		delete(k.toHold, id)
		k.holdLocked(id, line, k.faults.maxHold(), "until released")
	case k.faults.AnswerAfterCancel && k.methods[id] == "tools/call":
		k.holdLocked(id, line, k.faults.maxHold(), "until the host cancels it")
	case k.faults.Delay > 0:
		k.holdLocked(id, line, k.faults.Delay, "for --delay")
	default:
		return false
	}
	return true
}

// holdLocked keeps line from the host until it is released, or for d.
func (k *stdioKiller) holdLocked(id string, line []byte, d time.Duration, why string) {
	h := &heldAnswer{line: line}
	k.held[id] = h
	k.event(EventHeld + id + fmt.Sprintf(" (%s, at most %s)", why, d))
	h.timer = time.AfterFunc(d, func() { k.release(id) })
}

// Release passes a held answer on to the host.
func (k *stdioKiller) Release(ref RequestRef) error { return k.release(ref.ID) }

func (k *stdioKiller) release(id string) error {
	h, err := k.takeHeld(id)
	if err != nil {
		return err
	}
	k.event(EventReleased + id)
	return k.toHost.inject(h.line)
}

// Drop forgets a held answer: the host never gets it.
func (k *stdioKiller) Drop(ref RequestRef) error {
	id := ref.ID
	if _, err := k.takeHeld(id); err != nil {
		return err
	}
	k.event(EventDropped + id)
	return nil
}

// takeHeld removes the answer held for id and stops its timer.
func (k *stdioKiller) takeHeld(id string) (*heldAnswer, error) {
	k.mu.Lock()
	h := k.held[id]
	delete(k.held, id)
	k.mu.Unlock()
	if h == nil {
		return nil, fmt.Errorf("no answer to request %s is held", id)
	}
	h.timer.Stop()
	return h, nil
}

// hold marks a pending request's answer to be held when it comes.
func (k *stdioKiller) Hold(ref RequestRef) error {
	k.mu.Lock()
	k.toHold[ref.ID] = true
	k.mu.Unlock()
	return nil
}

// observe is a Recorder observer: a host's cancel of a request whose
// answer is held for --answer-after-cancel lets the answer go, late.
func (k *stdioKiller) observe(r wire.Record, p Parsed) {
	if !k.faults.AnswerAfterCancel || r.Dir != wire.Out {
		return
	}
	var id string
	switch {
	case r.Kind == wire.KindFrame:
		for _, m := range p.ms {
			if m.Method == "notifications/cancelled" {
				id = compact(m.p.RequestID)
			}
		}
	default:
		return
	}
	if id == "" {
		return
	}
	k.mu.Lock()
	_, ok := k.held[id]
	k.mu.Unlock()
	if ok {
		k.release(id)
	}
}

// maxNotedMethods bounds the methods noted of requests still open.
const maxNotedMethods = 100_000

// noteHost notes the method of a host's request, by id.
func (k *stdioKiller) noteHost(r wire.Record) {
	if r.Kind != wire.KindFrame || !k.faults.AnswerAfterCancel {
		return
	}
	for _, m := range messages(r.Data) {
		if m.Method != "" && len(m.ID) > 0 {
			k.mu.Lock()
			if len(k.methods) < maxNotedMethods {
				k.methods[compact(m.ID)] = m.Method
			}
			k.mu.Unlock()
		}
	}
}
