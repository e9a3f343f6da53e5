package transport

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// directConn is a slowConn that is also a DirectReceiver: the test hands
// items to the receiver itself, as a transport's reader would.
type directConn struct {
	*slowConn
	f func(Message)
}

func (c *directConn) ReceiveDirect(f func(Message)) bool {
	c.f = f
	return true
}

// What a tap passes on directly is recorded and stamped as what Recv
// returns: the receiver gets the time on the record, and an answer that
// arrives while its request is being written comes after the request.
func TestTapDirectRecordsAsRecv(t *testing.T) {
	if NewTap(newSlowConn(), steps()).ReceiveDirect(func(Message) {}) {
		t.Fatal("a tap over a Conn without a direct path accepted a direct receiver")
	}
	c := &directConn{slowConn: newSlowConn()}
	tap := NewTap(c, steps())
	var mu sync.Mutex
	var recs []wire.Record
	tap.Observe(func(r wire.Record) { mu.Lock(); recs = append(recs, r); mu.Unlock() })
	got := make(chan Message, 2)
	if !tap.ReceiveDirect(func(m Message) { got <- m }) {
		t.Fatal("the tap refused a direct receiver its Conn takes")
	}

	sent := make(chan time.Time, 1)
	go func() {
		at, _ := tap.SendOutgoing(Outgoing{Frame: []byte(`{"id":1,"method":"x"}`)})
		sent <- at
	}()
	recvWithin(t, c.entered, "the write to reach the conn")
	go c.f(Message{Kind: wire.KindFrame, Data: []byte(`{"id":1,"result":{}}`)})
	select {
	case m := <-got:
		t.Fatalf("the answer passed the tap at %v while its request was being written", m.At)
	case <-time.After(20 * time.Millisecond):
	}
	close(c.release)
	outAt, answer := recvWithin(t, sent, "SendStamped to return"), recvWithin(t, got, "the answer through the tap")
	c.in <- Message{Kind: wire.KindStderr, Data: []byte("warn")}
	line, err := tap.Recv()
	if err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(recs) != 3 || recs[0].Dir != wire.Out || recs[1].Dir != wire.In || recs[2].Kind != wire.KindStderr {
		t.Fatalf("records %+v; want the request, its answer, the stderr line", recs)
	}
	if !recs[0].At.Equal(outAt) || !recs[1].At.Equal(answer.At) || !answer.At.After(outAt) || !recs[2].At.Equal(line.At) {
		t.Errorf("request stamped %v (SendStamped said %v), answer %v (Message.At %v), stderr %v (Message.At %v)",
			recs[0].At, outAt, recs[1].At, answer.At, recs[2].At, line.At)
	}
	if string(answer.Data) != `{"id":1,"result":{}}` || string(recs[1].Data) != string(answer.Data) {
		t.Errorf("answer %q, its record %q", answer.Data, recs[1].Data)
	}
}

// Items from two readers at once (a stdio server's stdout and stderr)
// reach the receiver in the order of their records, as from Recv's one
// caller.
func TestTapDirectHandsOnInRecordOrder(t *testing.T) {
	c := &directConn{slowConn: newSlowConn()}
	tap := NewTap(c, steps())
	var mu sync.Mutex
	var recs, seen []time.Time
	tap.Observe(func(r wire.Record) { mu.Lock(); recs = append(recs, r.At); mu.Unlock() })
	tap.ReceiveDirect(func(m Message) {
		runtime.Gosched() // let the other reader try to pass
		mu.Lock()
		seen = append(seen, m.At)
		mu.Unlock()
	})
	var wg sync.WaitGroup
	for _, kind := range []wire.Kind{wire.KindFrame, wire.KindStderr} {
		wg.Go(func() {
			for range 500 {
				c.f(Message{Kind: kind, Data: []byte("x")})
			}
		})
	}
	wg.Wait()
	if !slices.Equal(recs, seen) {
		t.Fatal("the receiver took items out of the order of their records")
	}
}
