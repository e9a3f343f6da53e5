package rows

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// A row keeps a quote of a huge requestState, in its result and in a
// retry's params: head, tail and full size, not megabytes per round.
func TestRowKeepsAQuoteOfRequestState(t *testing.T) {
	state, _ := json.Marshal("HEAD" + strings.Repeat("s", 4<<20) + "TAIL")
	body := json.RawMessage(`{"name":"t","requestState":` + string(state) + `}`)
	s := NewStore()
	info := session.RequestInfo{Seq: 1, Method: "tools/call", Tool: "t", Params: body, State: session.Completed,
		Result: json.RawMessage(`{"resultType":"input_required","requestState":` + string(state) + `}`), ResultType: "input_required",
		Round: session.Round{N: 2, First: session.Ref{Seq: 1}}}
	r := s.started(info)
	s.SetInfo(1, info)
	for what, kept := range map[string]json.RawMessage{"params": r.Params, "info.Params": r.Info.Params, "result": r.Info.Result} {
		if len(kept) > 1024 || !strings.Contains(string(kept), `[4194312 bytes in all]`) || !strings.Contains(string(kept), "HEAD") {
			t.Errorf("%s keeps %d bytes: %.300s", what, len(kept), kept)
		}
	}
}
