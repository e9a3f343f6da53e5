package proxy

import (
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// A record stamped before one already queued (its goroutine read the
// clock, then waited for the queue's lock) keeps the records' times from
// going back: transcripts require t never to decrease (CI saw a line
// 0.2 ms before the one above it).
func TestRecorderTimesNeverGoBack(t *testing.T) {
	rec := NewRecorder()
	var got records
	rec.Observe(got.observe)
	base := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	lines := rec.lines(wire.In, false)
	rec.record(wire.Record{At: base.Add(2 * time.Millisecond), Dir: wire.Out, Kind: wire.KindRelay, Data: []byte("later")})
	rec.chunk(lines, base.Add(1*time.Millisecond), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"))
	rec.record(wire.Record{At: base, Dir: wire.Out, Kind: wire.KindRelay, Data: []byte("earliest, queued last")})
	rec.Close()
	all := got.all()
	if len(all) != 3 {
		t.Fatalf("%d records, want 3: %+v", len(all), all)
	}
	for i, r := range all {
		if !r.At.Equal(base.Add(2 * time.Millisecond)) {
			t.Errorf("record %d (%s) at %v, want the latest time queued before it, %v", i, r.Data, r.At.Sub(base), 2*time.Millisecond)
		}
	}
}
