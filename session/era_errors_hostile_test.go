package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// The names an error's data lists (supported versions, required
// capabilities) are bounded in messages: a server may send a million.
func TestErrorDataNamesAreBounded(t *testing.T) {
	many := make([]string, 100000)
	caps := map[string]any{}
	for i := range many {
		many[i] = strings.Repeat("v", 100)
		caps[strings.Repeat("c", 100)+string(rune('a'+i%26))+strings.Repeat("x", i%50)] = map[string]any{}
	}
	vdata, _ := json.Marshal(map[string]any{"supported": many, "requested": strings.Repeat("r", 1000)})
	cdata, _ := json.Marshal(map[string]any{"requiredCapabilities": caps})
	for _, e := range []*RPCError{{Code: CodeUnsupportedProtocolVersion, Message: "no", Data: vdata},
		{Code: CodeMissingClientCapability, Message: "no", Data: cdata}} {
		if n := len(e.Error()); n > 2000 {
			t.Errorf("code %d: the message is %d bytes", e.Code, n)
		}
		if !strings.Contains(e.Error(), " more") {
			t.Errorf("code %d: the message does not say more names were left out: %s", e.Code, e.Error())
		}
	}
	vr, ok := AsVersionRefused(&RPCError{Code: CodeUnsupportedProtocolVersion, Message: "no", Data: vdata}, Era2026Version)
	if !ok || len(vr.Error()) > 4000 || len(vr.Supported) != len(many) {
		t.Errorf("VersionRefusedError: ok=%v, %d bytes, %d versions kept", ok, len(vr.Error()), len(vr.Supported))
	}
}
