package transport

import (
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// steps is a clock that moves a nanosecond at every reading.
func steps() func() time.Time {
	var mu sync.Mutex
	now := time.Unix(0, 0)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(time.Nanosecond)
		return now
	}
}

// The tap's readings are the ones its callers get: SendStamped returns the
// time on the frame's record, and a Message carries the time on its own.
// Observers see records one at a time, in the order of their stamps, even
// when frames go out and come in at once.
func TestTapStampsAreTheRecordsAndInOrder(t *testing.T) {
	in, feed := io.Pipe()
	tap := NewTap(NewStream(in, io.Discard, 1<<20), steps())
	var mu sync.Mutex
	var recs []wire.Record
	busy := false
	tap.Observe(func(r wire.Record) {
		mu.Lock()
		defer mu.Unlock()
		if busy {
			t.Error("two observers ran at once")
		}
		busy = true
		recs = append(recs, r)
		busy = false
	})

	const n = 200
	go func() {
		for i := range n {
			fmt.Fprintf(feed, "{\"id\":%d}\n", i)
		}
	}()
	sent := make(map[time.Time]bool)
	var sentMu sync.Mutex
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range n / 4 {
				at, err := tap.SendOutgoing(Outgoing{Frame: fmt.Appendf(nil, `{"id":"%d-%d"}`, i, j)})
				if err != nil {
					t.Error(err)
					return
				}
				sentMu.Lock()
				sent[at] = true
				sentMu.Unlock()
			}
		})
	}
	got := make(map[time.Time]bool)
	for range n {
		m, err := tap.Recv()
		if err != nil {
			t.Fatal(err)
		}
		got[m.At] = true
	}
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	if len(recs) != 2*n {
		t.Fatalf("%d records; want %d", len(recs), 2*n)
	}
	for i, r := range recs {
		if i > 0 && !r.At.After(recs[i-1].At) {
			t.Fatalf("record %d at %v is not after record %d at %v", i, r.At, i-1, recs[i-1].At)
		}
		stamps := got
		if r.Dir == wire.Out {
			stamps = sent
		}
		if !stamps[r.At] {
			t.Errorf("%v record at %v: no caller got that reading", r.Dir, r.At)
		}
	}
}

// slowConn is a Conn whose Send waits for the test and whose Recv returns
// what the test queues.
type slowConn struct {
	entered chan struct{} // a Send began
	release chan struct{} // lets Sends finish
	in      chan Message
}

func newSlowConn() *slowConn {
	return &slowConn{entered: make(chan struct{}, 1), release: make(chan struct{}), in: make(chan Message, 4)}
}

func (c *slowConn) Send([]byte) error {
	c.entered <- struct{}{}
	select {
	case <-c.release:
	case <-time.After(hangGuard): // the test failed before it let go
	}
	return nil
}

func (c *slowConn) Recv() (Message, error) { return <-c.in, nil }
func (c *slowConn) Close() error           { return nil }

// A frame is stamped once written; what arrives while it is being written
// comes after it, so an answer never precedes its request.
func TestTapStampsAfterTheWriteAndKeepsAnswersAfterIt(t *testing.T) {
	c := newSlowConn()
	tap := NewTap(c, steps())
	var mu sync.Mutex
	var recs []wire.Record
	tap.Observe(func(r wire.Record) { mu.Lock(); recs = append(recs, r); mu.Unlock() })

	sent := make(chan time.Time, 1)
	go func() {
		at, _ := tap.SendOutgoing(Outgoing{Frame: []byte(`{"id":1,"method":"x"}`)})
		sent <- at
	}()
	recvWithin(t, c.entered, "the write to reach the conn")
	c.in <- Message{Kind: wire.KindFrame, Data: []byte(`{"id":1,"result":{}}`)}
	got := make(chan Message, 1)
	go func() { m, _ := tap.Recv(); got <- m }()
	select {
	case m := <-got:
		t.Fatalf("the answer passed the tap at %v while its request was being written", m.At)
	case <-time.After(20 * time.Millisecond):
	}
	close(c.release)
	outAt, m := recvWithin(t, sent, "SendStamped to return"), recvWithin(t, got, "the answer through the tap")
	mu.Lock()
	defer mu.Unlock()
	if len(recs) != 2 || recs[0].Dir != wire.Out || recs[1].Dir != wire.In {
		t.Fatalf("records %+v; want the request, then its answer", recs)
	}
	if !recs[0].At.Equal(outAt) || !recs[1].At.Equal(m.At) || !m.At.After(outAt) {
		t.Errorf("request stamped %v (SendStamped said %v), answer %v (Message.At %v)", recs[0].At, outAt, recs[1].At, m.At)
	}
}

// A write the peer does not read holds up what arrives for writeWait at
// most, once: the reader must keep draining a peer that is blocked on it.
func TestTapDoesNotWaitLongOnAStuckWrite(t *testing.T) {
	c := newSlowConn()
	defer close(c.release)
	tap := NewTap(c, steps())
	go func() { _, _ = tap.SendOutgoing(Outgoing{Frame: []byte(`{"big":"frame"}`)}) }()
	recvWithin(t, c.entered, "the write to reach the conn")
	start := time.Now()
	for i := range 3 {
		c.in <- Message{Kind: wire.KindFrame, Data: fmt.Appendf(nil, `{"id":%d}`, i)}
		if _, err := tap.Recv(); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 10*writeWait {
		t.Errorf("three items took %v to pass a stuck write; want about writeWait (%v) in all", d, writeWait)
	}
}
