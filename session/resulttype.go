package session

import (
	"bytes"
	"encoding/json"
)

// ResultComplete is the resultType of an ordinary result, and what a
// result without one counts as.
const ResultComplete = "complete"

// ResultTask is the resultType of a CreateTaskResult in the tasks
// extension (io.modelcontextprotocol/tasks, 2026-07-28).
const ResultTask = "task"

// resultTypeOf reads a result's resultType, "complete" when it has none
// (or it is not a string): clients MUST treat a missing one so.
func resultTypeOf(result json.RawMessage) string {
	if !bytes.Contains(result, []byte(`"resultType"`)) {
		return ResultComplete
	}
	// The common end of a result: the last of duplicate keys wins, and
	// those quotes cannot be inside a string, where quotes are escaped.
	if bytes.HasSuffix(result, completeTail) {
		return ResultComplete
	}
	// Read without decoding the rest: every modern result has one.
	if t := stringMember(result, "resultType"); t != "" {
		return t
	}
	return ResultComplete
}

// completeTail ends a result whose last member says it is complete, as
// servers write it.
var completeTail = []byte(`,"resultType":"complete"}`)
