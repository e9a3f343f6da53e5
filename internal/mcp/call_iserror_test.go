package mcp

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// CallResultIsError agrees with ReadCallResult on isError, shape checks
// included, and copies nothing of a large content.
func TestCallResultIsError(t *testing.T) {
	for _, raw := range []string{
		`{"content":[],"isError":true}`,
		`{"content":[{"type":"text","text":"x"}],"isError":false}`,
		`{"content":[{"type":"text","text":"x"}]}`,
		`{"content":{},"isError":true}`,
		`{"content":[],"structuredContent":{"a":1},"isError":true}`,
		`[]`,
		`{"isError":"yes"}`,
	} {
		r, err := ReadCallResult(json.RawMessage(raw))
		want := err == nil && r.IsError
		if got := CallResultIsError(json.RawMessage(raw)); got != want {
			t.Errorf("%s: %v, ReadCallResult says %v", raw, got, want)
		}
	}
	big := json.RawMessage(`{"content":[{"type":"text","text":"` + strings.Repeat("a", 4<<20) + `"}],"isError":true}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	isErr := CallResultIsError(big)
	runtime.ReadMemStats(&after)
	if !isErr {
		t.Error("a large result's isError was not read")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("reading isError of a 4 MB result allocated %d bytes; want no copy of its content", n)
	}
}
