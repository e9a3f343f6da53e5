package rows

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// At exactly twice its bound, a batch's stderr and wire records are
// trimmed to the newest bound's worth: a batch never holds twice the
// bound, and every event is counted.
func TestFeedTrimsStderrAndWireAtTwiceTheBound(t *testing.T) {
	f := NewFeed(make(chan session.Event), time.Hour)
	defer f.Stop()
	for i := range 2 * batchStderr {
		f.add(session.StderrLine{Line: fmt.Sprint(i)})
	}
	for range 2 * batchWire {
		f.AddRecord(wire.Record{Kind: wire.KindFrame})
	}
	f.mu.Lock()
	b := f.cur
	f.mu.Unlock()
	if len(b.Stderr) != batchStderr || b.StderrDropped != batchStderr || b.Stderr[0].Line != fmt.Sprint(batchStderr) {
		t.Errorf("stderr keeps %d from %q, dropped %d; want the newest %d, %d dropped",
			len(b.Stderr), b.Stderr[0].Line, b.StderrDropped, batchStderr, batchStderr)
	}
	if len(b.Wire) != batchWire || b.WireDropped != batchWire {
		t.Errorf("wire keeps %d, dropped %d; want %d and %d", len(b.Wire), b.WireDropped, batchWire, batchWire)
	}
	if b.Events != 2*batchStderr {
		t.Errorf("batch counts %d events, want the %d stderr lines", b.Events, 2*batchStderr)
	}
}
