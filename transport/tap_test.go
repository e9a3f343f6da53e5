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
				at, err := tap.SendStamped(fmt.Appendf(nil, `{"id":"%d-%d"}`, i, j))
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
