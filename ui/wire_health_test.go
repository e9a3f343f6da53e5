package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// The server's own request that happens to share a health ping's id, and
// mcpoke's answer to it, are no health check: ids are per direction.
func TestWireHealthMarkIsPerDirection(t *testing.T) {
	start := time.Date(2026, 11, 24, 18, 0, 0, 0, time.UTC)
	cm := &common{Styles: newStyles(true), Keys: defaultKeyMap(), Now: func() time.Time { return start }}
	wl := newWireLog(cm)
	wl.Reset(start)
	wl.SetSize(120, 10)
	wl.MarkHealth("3")
	frames := []struct {
		dir  wire.Direction
		data string
	}{
		{wire.Out, `{"jsonrpc":"2.0","id":3,"method":"ping"}`},
		{wire.In, `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{wire.In, `{"jsonrpc":"2.0","id":3,"method":"roots/list"}`},
		{wire.Out, `{"jsonrpc":"2.0","id":3,"result":{"roots":[]}}`},
	}
	var recs []wire.Record
	for i, f := range frames {
		recs = append(recs, wire.Record{At: start.Add(time.Duration(i) * time.Millisecond), Dir: f.dir, Kind: wire.KindFrame, Data: []byte(f.data)})
	}
	wl.Add(recs, 0)
	var marked []string
	for _, l := range strings.Split(ansi.Strip(wl.View()), "\n") {
		if strings.Contains(l, "(health check)") {
			marked = append(marked, l)
		}
	}
	if len(marked) != 2 || strings.Contains(strings.Join(marked, "\n"), "roots") {
		t.Errorf("want the ping and its result marked, not the server's roots/list and its answer:\n%s", strings.Join(marked, "\n"))
	}
}
