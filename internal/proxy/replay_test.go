package proxy

import (
	"bufio"
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transcript"
	"github.com/mcpoke/mcpoke/internal/wire"
)

// An attached client rebuilds the proxy's request table from the
// transcript lines it receives: the same rows and states.
func TestTableFromTranscriptLinesMatchesTheProxys(t *testing.T) {
	start := time.Now()
	direct := NewTable()
	var lines bytes.Buffer
	tw := transcript.New(&lines, start)
	at := start
	feed := func(r wire.Record) {
		at = at.Add(7 * time.Millisecond)
		r.At = at
		direct.Observe(r)
		tw.Observe(r)
	}
	frame := func(dir wire.Direction, s string) { feed(wire.Record{Dir: dir, Kind: wire.KindFrame, Data: []byte(s)}) }
	frame(wire.Out, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	frame(wire.In, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	frame(wire.Out, `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"_meta":{"progressToken":7}}}`)
	frame(wire.In, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`)
	frame(wire.Out, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","reason":"stop"}}`)
	frame(wire.In, `{"jsonrpc":"2.0","id":"a","result":{}}`)
	frame(wire.In, `{"jsonrpc":"2.0","id":9,"method":"roots/list"}`)
	frame(wire.Out, `{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"no"}}`)
	frame(wire.Out, `{"jsonrpc":"2.0","id":2,"method":"tools/call"}`)
	feed(wire.Record{Kind: wire.KindStderr, Dir: wire.In, Data: []byte("log")})
	feed(wire.Record{Kind: wire.KindRelay, Data: []byte(EventHostClosed)})

	replayed := NewTable()
	sc := bufio.NewScanner(&lines)
	for sc.Scan() {
		if r, ok := RecordOfLine(sc.Bytes(), start); ok {
			replayed.Observe(r)
		}
	}
	strip := func(rows []Row) []Row {
		for i := range rows {
			rows[i].Sent, rows[i].Ended, rows[i].CancelAt = time.Time{}, time.Time{}, time.Time{}
			rows[i].LateBy = rows[i].LateBy.Round(time.Millisecond)
		}
		return rows
	}
	want, got := strip(direct.Rows()), strip(replayed.Rows())
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows from the transcript:\n%+v\nwant the proxy's own:\n%+v", got, want)
	}
	states := []State{Answered, Late, Failed, Abandoned}
	for i, s := range states {
		if want[i].State != s {
			t.Errorf("row %d is %s, want %s", i, want[i].State, s)
		}
	}
}
