package proxy

import (
	"fmt"
	"time"
)

// The faults over HTTP. Each touches only the messages it names: the
// answer to one request (held, then passed on or dropped) or a progress
// notification (dropped). A response body goes on event by event (a JSON
// body whole) while the proxy may act on it, every byte as it came.

// httpHeld is an answer the proxy keeps from the host for now: the
// response body that carries it waits on fate.
type httpHeld struct {
	fate  chan bool // true: pass it on; false: drop it
	timer *time.Timer
}

// Hold marks a pending request's answer to be held when it comes.
func (k *httpKiller) Hold(ref RequestRef) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.inflight[ref]; !ok {
		return fmt.Errorf("request %s is not in flight through this proxy", ref)
	}
	k.toHold[ref] = true
	return nil
}

// Release passes a held answer on to the host.
func (k *httpKiller) Release(ref RequestRef) error { return k.settle(ref, true) }

// Drop forgets a held answer: the host never gets it.
func (k *httpKiller) Drop(ref RequestRef) error { return k.settle(ref, false) }

func (k *httpKiller) settle(ref RequestRef, pass bool) error {
	k.mu.Lock()
	h := k.held[ref]
	delete(k.held, ref)
	k.mu.Unlock()
	if h == nil {
		return fmt.Errorf("no answer to request %s is held", ref)
	}
	h.timer.Stop()
	if pass {
		k.event(ref.Session, EventReleased+ref.ID)
	} else {
		k.event(ref.Session, EventDropped+ref.ID)
	}
	h.fate <- pass
	return nil
}

// hostCancelled is the host's notifications/cancelled for ref: with
// --answer-after-cancel, an answer held for it goes on now, late.
func (k *httpKiller) hostCancelled(ref RequestRef) {
	if !k.faults.AnswerAfterCancel {
		return
	}
	k.mu.Lock()
	_, ok := k.held[ref]
	k.mu.Unlock()
	if ok {
		k.Release(ref)
	}
}

// fate says what becomes of one message from the upstream (data, an
// event's data or a JSON body) on the response to f (nil: a stream with
// no request of the host's): dropped, held (the body waits on the
// channel), or passed (both zero). It runs before the message is
// recorded, so that the records say it was held before it came.
func (k *httpKiller) fate(f *httpInflight, session string, data []byte) (drop bool, held chan bool) {
	ms := messages(data)
	if len(ms) != 1 {
		return false, nil
	}
	m := ms[0]
	if m.Method == "notifications/progress" {
		if k.faults.DropProgress {
			k.event(session, EventProgressDropped+compact(m.p.ProgressToken))
		}
		return k.faults.DropProgress, nil
	}
	if f == nil || m.Method != "" || len(m.ID) == 0 || compact(m.ID) != f.id || f.isKilled() {
		return false, nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	var d time.Duration
	var why string
	switch {
	case k.toHold[f.ref]:
		delete(k.toHold, f.ref)
		d, why = k.faults.maxHold(), "until released"
	case k.faults.AnswerAfterCancel && f.method == "tools/call":
		d, why = k.faults.maxHold(), "until the host cancels it"
	case k.faults.Delay > 0:
		d, why = k.faults.Delay, "for --delay"
	default:
		return false, nil
	}
	h := &httpHeld{fate: make(chan bool, 1)}
	k.held[f.ref] = h
	k.event(session, EventHeld+f.id+fmt.Sprintf(" (%s, at most %s)", why, d))
	ref := f.ref
	h.timer = time.AfterFunc(d, func() { k.Release(ref) })
	return false, h.fate
}

// forget drops what is held for ref without a word (its body ended).
func (k *httpKiller) forget(ref RequestRef) {
	k.mu.Lock()
	if h := k.held[ref]; h != nil {
		h.timer.Stop()
		delete(k.held, ref)
	}
	k.mu.Unlock()
}
