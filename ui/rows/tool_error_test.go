package rows

import (
	"encoding/json"
	"testing"

	"github.com/mcpoke/mcpoke/session"
)

// A completed tools/call whose result says isError is a tool error: the
// row says so and the store counts it, once, and forgets it if a later
// record says otherwise. Nothing else is a tool error.
func TestSetInfoCountsToolErrors(t *testing.T) {
	isError := json.RawMessage(`{"content":[],"isError":true}`)
	fine := json.RawMessage(`{"content":[]}`)
	tests := []struct {
		name   string
		method string
		state  session.State
		result json.RawMessage
		want   bool
	}{
		{"a completed call with isError", "tools/call", session.Completed, isError, true},
		{"a completed call without", "tools/call", session.Completed, fine, false},
		{"a result that is not a call result", "tools/call", session.Completed, json.RawMessage(`[1]`), false},
		{"a call that failed", "tools/call", session.Failed, isError, false},
		{"another method", "prompts/get", session.Completed, isError, false},
		{"no result", "tools/call", session.Completed, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore()
			s.Apply(session.RequestStarted{Info: session.RequestInfo{Seq: 1, ID: session.IntID(1), Method: tt.method, State: tt.state}})
			info := session.RequestInfo{Seq: 1, ID: session.IntID(1), Method: tt.method, State: tt.state, Result: tt.result}
			for range 2 { // the record may be fetched again
				if r := s.SetInfo(1, info); r == nil || r.ToolError != tt.want {
					t.Fatalf("tool error %v, want %v", r != nil && r.ToolError, tt.want)
				}
			}
			if want := map[bool]int{true: 1}[tt.want]; s.ToolErrors != want {
				t.Errorf("store counts %d tool errors, want %d", s.ToolErrors, want)
			}
			info.Result = fine
			if r := s.SetInfo(1, info); r.ToolError || s.ToolErrors != 0 {
				t.Errorf("after a record without isError: tool error %v, %d counted", r.ToolError, s.ToolErrors)
			}
		})
	}
	if NewStore().SetInfo(7, session.RequestInfo{Seq: 7}) != nil {
		t.Error("SetInfo made a row for an unknown request")
	}
}
