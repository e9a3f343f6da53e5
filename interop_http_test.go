package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestGoSDKClientAgainstDemoServerOverHTTP runs the official Go SDK's
// client (testdata/peers/gosdk/client) against `mcpoke demo-server` over
// Streamable HTTP and over the legacy HTTP+SSE transport: tools/list,
// echo, sleep with progress, and a sleep it cancels.
func TestGoSDKClientAgainstDemoServerOverHTTP(t *testing.T) {
	client := buildGoSDKClient(t)
	if client == "" {
		t.Skip("the Go SDK client peer does not build here (no module proxy?)")
	}
	bin := buildMcpoke(t)
	for _, c := range []struct{ name, flag, path, protocol, signal string }{
		{"http", "--http", "/mcp", "2025-11-25", "signal=notifications/cancelled"},
		// The SDK speaks 2026-07-28 too: its cancel is closing the stream.
		{"http-2026", "--http", "/mcp", "", `signal="stream closed"`},
		{"sse", "--sse", "/sse", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			url, stderr := startDemoServer(t, bin, c.flag, "--conformance-tools")
			if !strings.HasSuffix(url, c.path) {
				t.Fatalf("demo server URL %s, want one ending in %s", url, c.path)
			}
			args := []string{"-url", url}
			want := []string{"connected: mcpoke-demo", "tools: [sleep", "echo: hello over HTTP", "4 progress notifications", "cancelled: sleep"}
			switch {
			case c.flag == "--sse":
				args = append(args, "-sse")
			case c.protocol != "":
				// The SDK resumes a stream the server closed, with Last-Event-ID.
				args = append(args, "-reconnect", "-protocol", c.protocol)
				want = append(want, "resumed: Reconnection test completed successfully", "protocol "+c.protocol)
			default:
				want = append(want, "protocol 2026-07-28")
			}
			out, err := exec.Command(client, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("Go SDK client: %v\n%s\ndemo server:\n%s", err, out, stderr())
			}
			for _, w := range want {
				if !strings.Contains(string(out), w) {
					t.Errorf("client output lacks %q:\n%s", w, out)
				}
			}
			if c.signal != "" {
				waitForLog(t, stderr, c.signal)
			}
		})
	}
}

// startDemoServer runs `mcpoke demo-server FLAG 127.0.0.1:0 EXTRA...` and returns
// the URL it printed and a function returning its stderr so far. The
// server gets SIGINT at the end of the test and must exit promptly.
func startDemoServer(t testing.TB, bin, flag string, extra ...string) (string, func() string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"demo-server", flag, "127.0.0.1:0"}, extra...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log strings.Builder
	lines := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, pipe)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		exited := make(chan struct{})
		go func() { <-copied; _ = cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("the demo server did not exit within 10s of SIGINT")
		}
	})
	select {
	case first := <-lines:
		m := regexp.MustCompile(`^mcpoke demo-server: .* at (http://127\.0\.0\.1:\d+/\w+)$`).FindStringSubmatch(first)
		if m == nil {
			t.Fatalf("the demo server's first line: %q; want its URL", first)
		}
		return m[1], func() string {
			mu.Lock()
			defer mu.Unlock()
			return log.String()
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the demo server printed no URL within 10s")
	}
	return "", nil
}

// buildGoSDKClient builds testdata/peers/gosdk/client, a client on the
// official Go SDK, and returns the binary's path, or "" when it cannot be
// built here.
func buildGoSDKClient(t *testing.T) string { return buildGoSDK(t, "./client", "client") }

// TestTypeScriptClientAgainstDemoServerOverHTTP is the same round with the
// TypeScript reference SDK's client (testdata/peers/ts/http_client.mjs).
func TestTypeScriptClientAgainstDemoServerOverHTTP(t *testing.T) {
	sdk := filepath.Join(peersDir(), "node_modules", "@modelcontextprotocol", "sdk")
	if _, err := os.Stat(sdk); err != nil {
		if os.Getenv("MCPOKE_REQUIRE_PEERS") == "1" {
			t.Fatalf("MCPOKE_REQUIRE_PEERS=1 but the TypeScript SDK is not installed in %s", peersDir())
		}
		t.Skipf("the TypeScript SDK is not installed in %s (.ci/run installs it)", peersDir())
	}
	bin := buildMcpoke(t)
	for _, flag := range []string{"--http", "--sse"} {
		t.Run(strings.TrimPrefix(flag, "--"), func(t *testing.T) {
			url, stderr := startDemoServer(t, bin, flag)
			args := []string{filepath.Join("testdata", "peers", "ts", "http_client.mjs"), url}
			if flag == "--sse" {
				args = []string{args[0], "--sse", url}
			}
			cmd := exec.Command("node", args...)
			cmd.Env = append(os.Environ(), "MCPOKE_PEERS_DIR="+peersDir())
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("TypeScript client: %v\n%s\ndemo server:\n%s", err, out, stderr())
			}
			for _, want := range []string{"connected: mcpoke-demo", "echo: hello over HTTP", "progress notifications", "cancelled: sleep"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("client output lacks %q:\n%s", want, out)
				}
			}
			if flag == "--http" {
				waitForLog(t, stderr, `msg="cancel received"`)
			}
		})
	}
}

// waitForLog waits for the demo server to log want.
func waitForLog(t *testing.T, stderr func() string, want string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(stderr(), want); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the demo server never logged %s:\n%s", want, stderr())
		}
	}
}
