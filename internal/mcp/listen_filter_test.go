package mcp

import (
	"encoding/json"
	"slices"
	"testing"
)

// What the server left out of its acknowledgement is what it declined;
// a report names both.
func TestListenFilterDeclinedAndDescribe(t *testing.T) {
	asked := ListenFilter{ToolsListChanged: true, PromptsListChanged: true, ResourceSubscriptions: []string{"a://1", "b://2"}}
	ack := ListenFilter{PromptsListChanged: true, ResourceSubscriptions: []string{"b://2"}}
	d := asked.Declined(ack)
	if !d.ToolsListChanged || d.PromptsListChanged || d.ResourcesListChanged || !slices.Equal(d.ResourceSubscriptions, []string{"a://1"}) {
		t.Fatalf("declined %+v", d)
	}
	if got := d.Describe(); got != "toolsListChanged, resourceSubscriptions [a://1]" {
		t.Errorf("describe %q", got)
	}
	if !asked.Declined(asked).Empty() || (ListenFilter{}).Describe() != "nothing" {
		t.Error("nothing declined is not empty")
	}
}

// Before 2026-07-28 list changes come unasked: a filter keeps the kinds
// it names and the updates of its resources.
func TestListenFilterWants(t *testing.T) {
	f := ListenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"a://1"}}
	for _, c := range []struct {
		method, params string
		want           bool
	}{
		{ToolsListChanged, ``, true},
		{PromptsListChanged, ``, false},
		{ResourcesListChanged, ``, false},
		{ResourceUpdated, `{"uri":"a://1"}`, true},
		{ResourceUpdated, `{"uri":"b://2"}`, false},
		{ResourceUpdated, `{}`, false},
		{LogMessage, `{"level":"info","data":"x"}`, false},
	} {
		if got := f.Wants(c.method, json.RawMessage(c.params)); got != c.want {
			t.Errorf("Wants(%s, %s) = %v", c.method, c.params, got)
		}
	}
}
