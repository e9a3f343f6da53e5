package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestGoSDKHostKillSwitch kills the go-sdk host's pending call with
// `mcpoke attach NAME --kill-all`, over stdio and Streamable HTTP, in
// both eras, in both --on-kill modes. With error the SDK's CallTool
// returns the proxy's JSON-RPC error at once; silent, the call stays
// pending until its own context deadline. Either way the records say the
// proxy cancelled it, and the server got the cancel in the era's form:
// notifications/cancelled, or over 2026-07-28 HTTP a closed stream.
func TestGoSDKHostKillSwitch(t *testing.T) {
	host := buildGoSDKHost(t)
	if host == "" {
		t.Skip("the Go SDK host peer does not build here (no module proxy?)")
	}
	bin := buildMcpoke(t)
	for _, transport := range []string{"stdio", "http"} {
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			for _, mode := range []string{"error", "silent"} {
				t.Run(transport+"/"+era+"/"+mode, func(t *testing.T) {
					t.Parallel()
					killGoSDKCall(t, bin, host, transport, era, mode)
				})
			}
		}
	}
}

func killGoSDKCall(t *testing.T, bin, host, transport, era, mode string) {
	env := proxyEnv(t)
	dir := t.TempDir()
	records := filepath.Join(dir, "proxy.ndjson")
	name := "gosdk-kill"
	flags := []string{"--name", name, "--on-kill", mode, "--transcript", records}
	var h *sdkHost
	var serverLog func() string
	if transport == "stdio" {
		args := append([]string{"-stdio", "-protocol", era, bin, "proxy"}, flags...)
		h = startSDKHost(t, host, env, append(args, "--", bin, "demo-server")...)
		serverLog = h.transcript
	} else {
		var upstream string
		upstream, serverLog = startDemoServer(t, bin, "--http")
		url, _ := startNamedHTTPProxy(t, bin, env, upstream, flags...)
		h = startSDKHost(t, host, env, "-url", url, "-protocol", era)
	}
	// Silent, the call's own deadline ends it: long enough to see that
	// nothing comes first, short enough for the test.
	timeout := "60s"
	if mode == "silent" {
		timeout = "4s"
	}
	h.send(`call a sleep {"seconds":30,"steps":1} timeout=%s`, timeout)
	waitRecords(t, records, `"method":"tools/call"`, 20*time.Second)
	out := attach(t, bin, env, name, "--kill-all", "--reason", "killed by the test")
	if !regexp.MustCompile(`^cancelled on the host's behalf: (s1:)?\d+\n$`).MatchString(out) {
		t.Errorf("attach --kill-all said %q", out)
	}
	if mode == "error" {
		h.expect(`^a error: code -32800: mcpoke proxy cancelled this request on the host's behalf \(kill switch\): killed by the test \(after`, 20*time.Second)
	} else {
		// Nothing comes for the call until the SDK's own deadline.
		l := h.expect(`^a `, 20*time.Second)
		if !strings.HasPrefix(l, "a deadline exceeded (after ") {
			t.Errorf("silent kill: the call ended with %q, want its own deadline", l)
		}
	}
	// The proxy said it cancelled, and what it sent.
	text := waitRecords(t, records, `"relay":"mcpoke proxy cancelled, on the host's behalf, request `, 10*time.Second)
	answered := strings.Contains(text, `"relay":"mcpoke proxy answered the host: `)
	if answered != (mode == "error") {
		t.Errorf("--on-kill %s: the proxy answered the host: %v\n%s", mode, answered, text)
	}
	// The server got the cancel in the era's form.
	signal := "notifications/cancelled"
	if transport == "http" && era == "2026-07-28" {
		signal = "a closed stream"
		waitRecords(t, records, `"relay":"mcpoke proxy closed the upstream's response stream of request `, 10*time.Second)
	} else {
		waitRecords(t, records, `"relay":"mcpoke proxy sent the server: \{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"notifications/cancelled\\",\\"params\\":\{\\"reason\\":\\"killed by the test\\",\\"requestId\\":`, 10*time.Second)
	}
	deadline := time.Now().Add(10 * time.Second)
	got := regexp.MustCompile(`msg="cancel received" .*method=tools/call tool=sleep reason="killed by the test" .*signal=notifications/cancelled`)
	if signal != "notifications/cancelled" {
		// A closed stream carries no reason.
		got = regexp.MustCompile(`msg="cancel received" .*method=tools/call tool=sleep ran=\S+ signal="stream closed"`)
	}
	for !got.MatchString(serverLog()) {
		if time.Now().After(deadline) {
			t.Fatalf("the demo server logged no cancel by %s within 10s:\n%s", signal, serverLog())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The session goes on: a call after the kill is answered.
	h.send(`call b echo {"text":"after the kill"}`)
	h.expect(`^b answered: after the kill `, 20*time.Second)
	t.Logf("%s %s %s: records:\n%s", transport, era, mode, mustRead(t, records))
}

func mustRead(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
