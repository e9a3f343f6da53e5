package diagram

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkFollowerFlood follows a call through 10,000 progress
// notifications as the TUI does, drawing the timeline every 100 of
// them (a frame), and once more at the end.
func BenchmarkFollowerFlood(b *testing.B) {
	items := []Item{{T: 0, Dir: "out", Msg: json.RawMessage(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"progressToken":3},"name":"flood"}}`)}}
	for i := 1; i <= 10000; i++ {
		items = append(items, Item{Line: i + 1, T: float64(i) / 10, Dir: "in",
			Msg: json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":%d,"total":10000}}`, i))})
	}
	items = append(items, Item{T: 1001, Dir: "in", Msg: json.RawMessage(`{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`)})
	o := Options{Request: "3", Live: true}
	b.ReportAllocs()
	for b.Loop() {
		f := NewFollower(o)
		for i := 0; i < len(items); i += 100 {
			f.Add(items[i:min(i+100, len(items))]...)
			o.Now = items[min(i+99, len(items)-1)].T
			l, _ := f.Life(o)
			_ = TextLines(l, 94)
		}
	}
}
