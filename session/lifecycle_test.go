package session

import "testing"

// initialize offers the latest version and empty capabilities unless told
// otherwise, and what it is told otherwise it sends as given.
func TestInitializeParams(t *testing.T) {
	const answer = `{"protocolVersion":"2025-03-26","serverInfo":{"name":"p","version":"1"},"capabilities":{}}`
	for _, tc := range []struct {
		opts InitializeOptions
		want string
	}{
		{InitializeOptions{},
			`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"","version":""}}`},
		{InitializeOptions{ProtocolVersion: "2025-03-26", Capabilities: []byte(`{"roots":{}}`), ClientInfo: Implementation{Name: "mcpoke", Version: "1"}},
			`{"protocolVersion":"2025-03-26","capabilities":{"roots":{}},"clientInfo":{"name":"mcpoke","version":"1"}}`},
	} {
		h := newHarness(t, harnessOpts{})
		_, req, err := h.initialize(tc.opts, answer)
		if err != nil {
			t.Fatal(err)
		}
		if string(req.Params) != tc.want {
			t.Errorf("initialize params %s, want %s", req.Params, tc.want)
		}
	}
}
