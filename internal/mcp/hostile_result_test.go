package mcp

import (
	"encoding/json"
	"testing"
)

// A result's _meta or serverInfo of the wrong type must not hide its
// resultType: an input_required result read as complete would be shown
// as the tool's result and never retried.
func TestReadResultMetaWrongTypesKeepResultType(t *testing.T) {
	for _, meta := range []string{`[]`, `5`, `"x"`, `{"io.modelcontextprotocol/serverInfo":"x"}`,
		`{"io.modelcontextprotocol/serverInfo":{"name":5}}`, `{"io.modelcontextprotocol/serverInfo":null}`} {
		res := json.RawMessage(`{"resultType":"input_required","requestState":"s","_meta":` + meta + `}`)
		m := ReadResultMeta(res)
		if m.Type != ResultInputRequired {
			t.Errorf("_meta %s: resultType read as %q", meta, m.Type)
		}
		if m.ServerInfo != nil {
			t.Errorf("_meta %s: serverInfo read as %+v", meta, *m.ServerInfo)
		}
		if _, ok, err := ReadInputRequired(res); !ok || err != nil {
			t.Errorf("_meta %s: ReadInputRequired ok=%v err=%v", meta, ok, err)
		}
	}
	m := ReadResultMeta(json.RawMessage(`{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"n","version":"1"}},"ttlMs":"x"}`))
	if m.ServerInfo == nil || m.ServerInfo.Name != "n" || m.TTL != nil || m.Type != "complete" {
		t.Errorf("a good serverInfo beside a bad ttlMs: %+v", m)
	}
}

// JSON keys are exact: a "ResultType" or "RequestState" is not the
// member the spec names, whatever encoding/json's struct matching says.
func TestResultMembersAreReadByExactKey(t *testing.T) {
	if m := ReadResultMeta(json.RawMessage(`{"resultType":"complete","RESULTTYPE":"input_required"}`)); m.Type != "complete" {
		t.Errorf("RESULTTYPE read as resultType: %q", m.Type)
	}
	if m := ReadResultMeta(json.RawMessage(`{"resultType":"complete","cacheScope":null}`)); m.CacheScope != "" {
		t.Errorf("a null cacheScope read as %q", m.CacheScope)
	}
	_, ok, err := ReadInputRequired(json.RawMessage(`{"resultType":"input_required","RequestState":"x"}`))
	if !ok || err == nil {
		t.Errorf("RequestState taken for requestState: ok=%v err=%v", ok, err)
	}
	ir, _, err := ReadInputRequired(json.RawMessage(`{"resultType":"input_required","inputRequests":{"k":{"Method":"roots/list","method":"sampling/createMessage"}}}`))
	if err != nil || len(ir.Requests) != 1 || ir.Requests[0].Method != "sampling/createMessage" {
		t.Errorf("inputRequests read as %+v, %v", ir.Requests, err)
	}
}
