package proxy

import (
	"encoding/json"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// RecordOfLine reads back a transcript line that a proxy wrote (as
// mcpoke attach receives them) into the record a Table observes: frames
// ("msg") and relay events. Other lines give false. Times are start plus
// the line's t.
func RecordOfLine(line []byte, start time.Time) (wire.Record, bool) {
	var l struct {
		T     float64         `json:"t"`
		Dir   string          `json:"dir"`
		Msg   json.RawMessage `json:"msg"`
		Relay *string         `json:"relay"`
	}
	if json.Unmarshal(line, &l) != nil {
		return wire.Record{}, false
	}
	at := start.Add(time.Duration(l.T * float64(time.Millisecond)))
	switch {
	case l.Relay != nil:
		return wire.Record{At: at, Kind: wire.KindRelay, Data: []byte(*l.Relay)}, true
	case len(l.Msg) > 0 && (l.Dir == "out" || l.Dir == "in"):
		dir := wire.In
		if l.Dir == "out" {
			dir = wire.Out
		}
		return wire.Record{At: at, Dir: dir, Kind: wire.KindFrame, Data: l.Msg}, true
	}
	return wire.Record{}, false
}
