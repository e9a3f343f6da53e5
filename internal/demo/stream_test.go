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
	// Handlers run concurrently: the answers may come in either order.
	answers := map[string]string{}
	for range 2 {
		if !lines.Scan() {
			t.Fatalf("no answer after %d: %v", len(answers), lines.Err())
		}
		var m struct {
			ID     json.RawMessage
			Result json.RawMessage
		}
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil || m.Result == nil {
			t.Fatalf("line %q: %v", lines.Text(), err)
		}
		answers[string(m.ID)] = string(m.Result)
	}
	if _, ok := answers[`1`]; !ok {
		t.Fatalf("no answer to initialize: %v", answers)
	}
	if r, ok := answers[`"two"`]; !ok || !strings.Contains(r, `"hi"`) {
		t.Fatalf("echo answer %q", r)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(hangGuard):
		t.Fatal("Serve did not end with its input")
	}
}
