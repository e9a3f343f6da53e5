package rows

import (
	"encoding/json"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// A proxied HTTP session's request is named with its session, since two
// sessions may use the same id.
func TestRowLabelNamesTheHostSession(t *testing.T) {
	id, err := session.ParseID(json.RawMessage("3"))
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore()
	s.started(session.RequestInfo{Seq: 1, ID: id, Method: "tools/call", Tool: "sleep", Session: "s2", State: session.Pending})
	s.started(session.RequestInfo{Seq: 2, ID: id, Method: "tools/call", Tool: "sleep", State: session.Pending})
	var labels []string
	for _, seq := range []uint64{1, 2} {
		labels = append(labels, s.Get(seq).Label())
	}
	if labels[0] != "#s2:3 tools/call sleep" || labels[1] != "#3 tools/call sleep" {
		t.Errorf("labels %q, want the session's before its id, and none without one", labels)
	}
}
