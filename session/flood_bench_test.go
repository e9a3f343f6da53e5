package session

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
)

// strayFloodBound is the most heap a session and a subscriber that keeps
// every event may hold after 40 stray 10 MiB frames: events keep
// MaxKept bytes of each, not the 400 MiB the peer sent.
const strayFloodBound = 16 << 20

// BenchmarkStrayFlood floods a session with 40 stray 10 MiB responses
// while a subscriber keeps every event, as the TUI and call do, and fails
// when the heap left after them is over strayFloodBound.
func BenchmarkStrayFlood(b *testing.B) {
	const frames, size = 40, 10 << 20
	pad := strings.Repeat("a", size)
	for b.Loop() {
		client, peer := transporttest.Pipe()
		s := New(client, Config{Clock: clocktest.New()})
		var kept []Event
		sub := s.Subscribe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			for e := range sub.C {
				kept = append(kept, e)
			}
		}()
		c, err := s.Call(context.Background(), "ping", nil, CallOptions{})
		if err != nil {
			b.Fatal(err)
		}
		peer.Recv()
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range frames {
			peer.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"x":"%s"}}`, 100000+i, pad))
		}
		peer.Send([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		select {
		case <-c.Done():
		case <-time.After(hangGuard):
			b.Fatalf("the flood's last answer did not end its call within %v", hangGuard)
		}
		s.Close()
		select {
		case <-done:
		case <-time.After(hangGuard):
			b.Fatalf("the event reader did not end within %v of Close", hangGuard)
		}
		var after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&after)
		grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		b.ReportMetric(float64(grew)/(1<<20), "MiB-kept")
		strays := 0
		for _, e := range kept {
			if _, ok := e.(StrayArrived); ok {
				strays++
			}
		}
		if strays != frames {
			b.Fatalf("%d stray events, want %d", strays, frames)
		}
		if grew > strayFloodBound {
			b.Fatalf("the heap grew %d MiB keeping %d stray events, over the bound of %d MiB",
				grew>>20, strays, strayFloodBound>>20)
		}
		runtime.KeepAlive(kept)
	}
}
