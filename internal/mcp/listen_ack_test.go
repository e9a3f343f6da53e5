package mcp

import (
	"encoding/json"
	"slices"
	"testing"
)

// A resource subscription is a listen naming every resource with the list
// changes the server notifies; the acknowledgement says which it agreed to.
func TestSubscribeFilterAndAck(t *testing.T) {
	caps := ServerCapabilities{Tools: &ListChanged{ListChanged: true}}
	f := SubscribeFilter(caps, []string{"a://1", "b://2"})
	raw, _ := json.Marshal(f)
	if string(raw) != `{"toolsListChanged":true,"resourceSubscriptions":["a://1","b://2"]}` {
		t.Fatalf("filter %s", raw)
	}
	if !SubscribeFilter(ServerCapabilities{}, nil).Empty() {
		t.Fatal("nothing to listen for is not empty")
	}
	ack, err := ParseListenAck(json.RawMessage(`{"_meta":{"io.modelcontextprotocol/subscriptionId":3},"notifications":{"resourceSubscriptions":["a://1"]}}`))
	if err != nil || !slices.Equal(ack.ResourceSubscriptions, []string{"a://1"}) || ack.ToolsListChanged {
		t.Fatalf("ack %+v %v", ack, err)
	}
	if _, err := ParseListenAck(json.RawMessage(`{"_meta":{}}`)); err == nil {
		t.Fatal("an acknowledgement without notifications was read")
	}
}
