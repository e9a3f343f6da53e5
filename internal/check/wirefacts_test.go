package check

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// A call whose stream carries more events than the recording keeps
// before it is cancelled still has its cancel's 202 among its facts: the
// events' id notes, never quoted, are not what fills the recording. (The
// demo's sleep sends over a thousand progress events in the first 400 ms;
// under -race the cancel came after 500 of them, and its 202 was lost.)
func TestWireFactsKeepTheCancelAfterManyEvents(t *testing.T) {
	var f wireFacts
	f.start()
	started := time.Now()
	rec := func(at time.Duration, text string) {
		f.observe(wire.Record{Kind: wire.KindHTTP, At: started.Add(at), Data: []byte(text)})
	}
	rec(time.Millisecond, "POST tools/call id 7 → 200 OK text/event-stream")
	for i := range 2 * maxWireFacts {
		rec(2*time.Millisecond, fmt.Sprintf("POST tools/call id 7: event id \"1-%d\"", i))
	}
	cancelAt := started.Add(300 * time.Millisecond)
	rec(301*time.Millisecond, "POST notifications/cancelled → 202 Accepted")
	got := aboutRequest(f.stop(), "7", started, cancelAt)
	if len(got) != 2 || string(got[1].Data) != "POST notifications/cancelled → 202 Accepted" {
		t.Fatalf("facts about the call: %d, want its POST and its cancel's 202:\n%v", len(got), got)
	}
}
