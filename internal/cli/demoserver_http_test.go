package cli

import (
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
)

func TestDemoServerHTTPPrintsItsURLAndStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &buffertest.Buffer{}
	done := make(chan error, 1)
	go func() { done <- serveDemoHTTP(ctx, stderr, demoServerFlags{http: "127.0.0.1:0", sse: "127.0.0.1:0"}) }()

	urls := regexp.MustCompile(`Streamable HTTP at (http://127\.0\.0\.1:[1-9][0-9]*/mcp)\n(?s:.*)HTTP\+SSE at (http://127\.0\.0\.1:[1-9][0-9]*/sse)\n`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no URLs on stderr: %q", stderr.String())
		}
		m = urls.FindStringSubmatch(stderr.String())
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	req, _ := http.NewRequest(http.MethodPost, m[1], strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"mcpoke-demo"`) {
		t.Fatalf("initialize at %s: %s", m[1], body)
	}
	sse, err := client.Get(m[2]) // held open: shutdown must end it
	if err != nil {
		t.Fatal(err)
	}
	defer sse.Body.Close()

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serveDemoHTTP: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serveDemoHTTP did not return after its context ended")
	}
}

func TestDemoServerHTTPRefusesNonLoopbackAddresses(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "example.com:80", "no-port"} {
		err := serveDemoHTTP(context.Background(), io.Discard, demoServerFlags{http: addr})
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != ExitUsage {
			t.Errorf("--http %s: %v; want a usage error", addr, err)
		}
	}
	ln, err := listenDemo("localhost:0", false, "--http")
	if err != nil {
		t.Fatalf("--http localhost:0: %v", err)
	}
	ln.Close()
}
