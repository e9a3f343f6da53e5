package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/transport"
)

// TestRandomInterleavings runs thousands of requests against a chaotic
// peer that answers, errs, sends progress, duplicates and strays in random
// order, while callers cancel at random and timeouts fire. It then checks
// the invariants of the request table on the events and the wire. A
// broken invariant, an illegal state change, a panic in the test's own
// goroutines (workers, which also run the fake clock's timers, and the
// peer) or a wait that never ends fails the test with the seed, and the
// other tests still run. A panic in the session's own goroutines (its
// reader, context watches) still kills the whole test binary: only the
// session could recover there, and it must not hide its bugs.
func TestRandomInterleavings(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { runInterleaving(t, seed, 1500) })
	}
}

type cancelOutcome struct {
	id   ID
	call *Call
}

func runInterleaving(t *testing.T, seed uint64, n int) {
	a, b := transporttest.Pipe()
	clock := clocktest.New()
	cli := New(a, Config{Clock: clock, SettleWindow: 500 * time.Millisecond})
	cli.mu.Lock()
	cli.onIllegalMove = func(msg string) { t.Errorf("seed %d: %s", seed, msg) }
	cli.mu.Unlock()
	events := collect(cli.Subscribe())
	peer := newChaoticPeer(b, seed)
	go func() {
		defer recoverInto(t, seed, "the chaotic peer")
		peer.run()
	}()

	if _, err := cli.Initialize(context.Background(), InitializeOptions{}); err != nil {
		t.Fatalf("seed %d: initialize: %v", seed, err)
	}

	var (
		mu        sync.Mutex
		calls     []*Call
		cancelled []cancelOutcome // Cancel returned nil
		wg        sync.WaitGroup
	)
	const workers = 4
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer recoverInto(t, seed, fmt.Sprint("worker ", w))
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for range n / workers {
				switch k := rng.IntN(10); {
				case k < 5:
					opts := CallOptions{}
					if rng.IntN(3) == 0 {
						opts.Timeout = time.Duration(1+rng.IntN(5)) * time.Second
						opts.ResetTimeoutOnProgress = rng.IntN(2) == 0
					}
					c, err := cli.Call(context.Background(), "tools/call", map[string]any{"name": "t", "n": k}, opts)
					if err != nil {
						t.Errorf("seed %d: Call: %v", seed, err)
						return
					}
					mu.Lock()
					calls = append(calls, c)
					mu.Unlock()
				case k < 8:
					mu.Lock()
					var c *Call
					if len(calls) > 0 {
						c = calls[rng.IntN(len(calls))]
					}
					mu.Unlock()
					if c != nil && cli.Request(c.Ref()).Cancel("random") == nil {
						mu.Lock()
						cancelled = append(cancelled, cancelOutcome{c.ID(), c})
						mu.Unlock()
					}
				case k < 9:
					// initialize, unknown requests and wrongly typed ids: always refused.
					for _, ref := range []Ref{{Seq: 1, ID: IntID(1)}, {Seq: 1 << 40, ID: IntID(1 << 40)}, {Seq: 2, ID: StringID("2")}} {
						if err := cli.Request(ref).Cancel("bad"); err == nil {
							t.Errorf("seed %d: Cancel(%+v) accepted", seed, ref)
						}
					}
				default:
					clock.Advance(time.Duration(rng.IntN(800)) * time.Millisecond)
				}
			}
		}()
	}
	workersDone := make(chan struct{})
	go func() {
		wg.Wait()
		close(workersDone)
	}()
	waitClosed(t, workersDone, fmt.Sprintf("seed %d: every worker finishing its calls and cancels", seed))
	// Let every timeout and settle window run out, then have the peer
	// answer everything still open, late or not.
	clock.Advance(time.Minute)
	if !peer.flush(len(calls)) {
		t.Errorf("seed %d: the peer did not read all %d requests within %v", seed, len(calls), hangGuard)
	}
	for _, c := range calls {
		select {
		case <-c.Done():
		case <-time.After(hangGuard):
			info, _ := cli.Request(c.Ref()).Info()
			t.Errorf("seed %d: request %s never ended (hang guard): %+v", seed, c.ID(), info)
		}
	}
	closeWithin(t, cli)
	peer.wait(t)
	events.waitFor(t, "closed", func(e Event) bool { _, ok := e.(Closed); return ok })
	if peer.err != nil {
		t.Errorf("seed %d: %v", seed, peer.err)
	}

	checkOneFinalState(t, seed, events.snapshot())
	for _, co := range cancelled {
		if _, st, err := co.call.Result(); st != Cancelled || !errors.Is(err, ErrCancelled) {
			t.Errorf("seed %d: request %s: Cancel returned nil but it ended %v (%v)", seed, co.id, st, err)
		}
	}
	checkCancelsOnWire(t, seed, peer, events.snapshot())
}

// recoverInto turns a panic in one of the test's goroutines into a test
// failure that names the seed, so that the other tests still run.
func recoverInto(t *testing.T, seed uint64, who string) {
	if r := recover(); r != nil {
		t.Errorf("seed %d: %s panicked: %v\n%s", seed, who, r, debug.Stack())
	}
}

// checkOneFinalState: every request ends in exactly one final state, by
// legal moves only.
func checkOneFinalState(t *testing.T, seed uint64, evs []Event) {
	t.Helper()
	state := map[uint64]State{}
	finals := map[uint64]int{}
	for _, e := range evs {
		switch e := e.(type) {
		case RequestStarted:
			state[e.Info.Seq] = Pending
		case StateChanged:
			from, ok := state[e.Ref.Seq]
			if !ok || from != e.From {
				t.Fatalf("seed %d: seq %d: change from %v, but it was %v (known %v)", seed, e.Ref.Seq, e.From, from, ok)
			}
			legal := (from == Pending && e.To != Pending) || (from == Cancelling && e.To == Cancelled)
			if !legal {
				t.Fatalf("seed %d: seq %d: illegal move %v → %v", seed, e.Ref.Seq, from, e.To)
			}
			state[e.Ref.Seq] = e.To
			if e.To.Final() {
				finals[e.Ref.Seq]++
			}
		}
	}
	for seq := range state {
		if finals[seq] != 1 {
			t.Errorf("seed %d: seq %d reached %d final states (now %v)", seed, seq, finals[seq], state[seq])
		}
	}
}

// checkCancelsOnWire: one cancel per cancelled or timed-out request, after
// its request, with the id's JSON type kept, never for initialize, never
// for a request that had already finished when the client decided.
func checkCancelsOnWire(t *testing.T, seed uint64, p *chaoticPeer, evs []Event) {
	t.Helper()
	decided := map[string]int{}
	for _, e := range evs {
		if sc, ok := e.(StateChanged); ok && !sc.Ref.Incoming && sc.From == Pending && (sc.To == Cancelling || sc.To == TimedOut) {
			decided[sc.Ref.ID.raw]++
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := map[string]int{}
	for _, c := range p.cancels {
		if c.id == "1" {
			t.Fatalf("seed %d: cancel sent for initialize", seed)
		}
		if !p.requested[c.id] || c.pos < p.requestPos[c.id] {
			t.Fatalf("seed %d: cancel for %s before (or without) its request", seed, c.id)
		}
		seen[c.id]++
	}
	for id, n := range seen {
		if n != 1 || decided[id] != 1 {
			t.Errorf("seed %d: id %s: %d cancels on the wire, %d decided", seed, id, n, decided[id])
		}
	}
	for id := range decided {
		if seen[id] != 1 {
			t.Errorf("seed %d: id %s: decided cancel, %d on the wire", seed, id, seen[id])
		}
	}
}

// chaoticPeer answers requests in random order and ways.
type chaoticPeer struct {
	conn transport.Conn
	rng  *rand.Rand
	done chan struct{}

	mu         sync.Mutex
	open       []string // request ids (JSON text) not yet answered
	answered   []string
	requested  map[string]bool
	requestPos map[string]int
	cancels    []wireCancel
	pos        int
	err        error // what the client did wrong on the wire; read after wait
}

type wireCancel struct {
	id  string
	pos int
}

func newChaoticPeer(c transport.Conn, seed uint64) *chaoticPeer {
	return &chaoticPeer{conn: c, rng: rand.New(rand.NewPCG(seed, 99)), done: make(chan struct{}),
		requested: map[string]bool{}, requestPos: map[string]int{}}
}

func (p *chaoticPeer) run() {
	defer close(p.done)
	for {
		m, err := p.conn.Recv()
		if err != nil {
			return
		}
		var w wireMessage
		if json.Unmarshal(m.Data, &w) != nil {
			if p.err == nil {
				p.err = fmt.Errorf("client wrote invalid JSON: %s", m.Data)
			}
			continue
		}
		p.mu.Lock()
		p.pos++
		switch {
		case w.Method == "initialize":
			p.send(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"chaos","version":"0"},"capabilities":{}}}`, w.ID)
		case w.Method == "notifications/cancelled":
			var cp struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(w.Params, &cp)
			p.cancels = append(p.cancels, wireCancel{string(cp.RequestID), p.pos})
		case w.isRequest():
			id := string(w.ID)
			p.requested[id] = true
			p.requestPos[id] = p.pos
			p.open = append(p.open, id)
		}
		for range p.rng.IntN(3) {
			p.act()
		}
		p.mu.Unlock()
	}
}

// act does one random thing. Callers hold p.mu.
func (p *chaoticPeer) act() {
	switch k := p.rng.IntN(12); {
	case k < 4 && len(p.open) > 0:
		i := p.rng.IntN(len(p.open))
		id := p.open[i]
		p.open = append(p.open[:i], p.open[i+1:]...)
		p.answered = append(p.answered, id)
		if k == 0 {
			p.send(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"nope"}}`, id)
		} else {
			p.send(`{"jsonrpc":"2.0","id":%s,"result":{"content":[]}}`, id)
		}
	case k < 8 && len(p.open) > 0:
		id := p.open[p.rng.IntN(len(p.open))]
		p.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d}}`, id, p.pos)
	case k < 9 && len(p.answered) > 0:
		p.send(`{"jsonrpc":"2.0","id":%s,"result":{"dup":true}}`, p.answered[p.rng.IntN(len(p.answered))])
	case k < 10:
		p.send(`{"jsonrpc":"2.0","id":"stray-%d","result":{}}`, p.pos)
	case k < 11:
		p.send(`not json at all %d`, p.pos)
	}
}

func (p *chaoticPeer) send(format string, args ...any) {
	for i, a := range args {
		if r, ok := a.(json.RawMessage); ok {
			args[i] = string(r)
		}
	}
	p.conn.Send(fmt.Appendf(nil, format, args...))
}

// flush answers every open request once the peer has read all n; false
// when it had not read them within hangGuard.
func (p *chaoticPeer) flush(n int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for deadline := time.Now().Add(hangGuard); len(p.requested) < n; {
		if time.Now().After(deadline) {
			return false
		}
		p.mu.Unlock()
		runtime.Gosched()
		p.mu.Lock()
	}
	for _, id := range p.open {
		p.send(`{"jsonrpc":"2.0","id":%s,"result":{"flushed":true}}`, id)
	}
	p.open = nil
	return true
}

// wait closes the peer's end and waits for its reader to stop.
func (p *chaoticPeer) wait(t *testing.T) {
	t.Helper()
	p.conn.Close()
	waitClosed(t, p.done, "the chaotic peer's reader ending after its end was closed")
}
