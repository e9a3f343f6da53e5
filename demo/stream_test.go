package demo

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestServeOverStreams runs the demo as `mcpoke demo-server` does, over a
// reader and a writer, and checks it ends when its input does.
func TestServeOverStreams(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(inR, outW, io.Discard); outW.Close() }()

	lines := bufio.NewScanner(outR)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	send(`not json at all`)
	send(`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	for want := range 2 {
		if !lines.Scan() {
			t.Fatalf("no line %d: %v", want, lines.Err())
		}
		var m struct {
			ID     json.RawMessage
			Result json.RawMessage
		}
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil || m.Result == nil {
			t.Fatalf("line %q: %v", lines.Text(), err)
		}
		if want == 1 && (string(m.ID) != `"two"` || !strings.Contains(string(m.Result), `"hi"`)) {
			t.Fatalf("echo answer %s", lines.Text())
		}
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not end with its input")
	}
}
