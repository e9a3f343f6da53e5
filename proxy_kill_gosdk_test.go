package main

import (
	"encoding/json"
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
	records, card := filepath.Join(dir, "proxy.ndjson"), filepath.Join(dir, "card.json")
	name := "gosdk-kill"
	flags := []string{"--name", name, "--on-kill", mode, "--transcript", records, "--report", card}
	var h *sdkHost
	var serverLog func() string
	stopProxy := func() {} // over stdio the host's leaving ends it
	if transport == "stdio" {
		args := append([]string{"-stdio", "-protocol", era, bin, "proxy"}, flags...)
		h = startSDKHost(t, host, env, append(args, "--", bin, "demo-server")...)
		serverLog = h.transcript
	} else {
		var upstream string
		upstream, serverLog = startDemoServer(t, bin, "--http")
		var url string
		url, stopProxy = startHTTPProxy(t, bin, env, upstream, flags...)
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
	h.quit(20 * time.Second)
	stopProxy()
	text = mustRead(t, records)
	// Silent, the SDK gives up at its deadline and cancels the request
	// itself, as it would any other: a notification (over 2026-07-28
	// HTTP it closes the stream too). The proxy passes it on, and the
	// card grades it as the host's cancel.
	hostCancels := countRecords(text, `"dir":"out","msg":\{"jsonrpc":"2.0","method":"notifications/cancelled","params":\{"reason":"context deadline exceeded","requestId":\d+\}`)
	closed := countRecords(text, `"relay":"the host closed the response stream of request `)
	wantClosed := 0
	if mode == "silent" && transport == "http" {
		wantClosed = 1
	}
	if hostCancels != map[string]int{"error": 0, "silent": 1}[mode] || closed != wantClosed {
		t.Errorf("--on-kill %s: the host sent %d notifications/cancelled and closed %d streams, want %d and %d",
			mode, hostCancels, closed, map[string]int{"error": 0, "silent": 1}[mode], wantClosed)
	}
	rep := readCard(t, card)
	form, close := rep.line("Cancels in the form its era and transport call for"), rep.line("Cancels what is pending before it leaves")
	if mode == "error" {
		if form.Status != "skip" {
			t.Errorf("--on-kill error: the host never cancelled, yet the form line says %s %q", form.Status, form.Facts)
		}
	} else {
		how := "notifications/cancelled"
		if transport == "http" {
			how = "notifications/cancelled and closed its response stream"
		}
		if form.Status != "pass" || len(form.Facts) != 1 || !regexp.MustCompile(`^request (s1:)?\d+ \(tools/call\): `+how+`$`).MatchString(form.Facts[0]) {
			t.Errorf("--on-kill silent: the form line says %s %q, want pass for %s", form.Status, form.Facts, how)
		}
	}
	// The host leaves by closing the proxy's input over stdio, by DELETE
	// of its session over 2025-era HTTP; with no session (2026-07-28
	// HTTP) the proxy cannot tell that a host has left.
	closeStatus := "pass"
	if transport == "http" && era == "2026-07-28" {
		closeStatus = "skip"
	}
	if close.Status != closeStatus || len(close.Facts) != 2 || !regexp.MustCompile(`^the proxy cancelled 1 request on the host's behalf \((s1:)?\d+\); it is not graded$`).MatchString(close.Facts[1]) {
		t.Errorf("the on-close line says %s %q, want %s and the proxy's kill", close.Status, close.Facts, closeStatus)
	}
	t.Logf("%s %s %s: records:\n%s\ncard: %+v", transport, era, mode, text, rep)
}

// readCard reads the card --report wrote as JSON.
func readCard(t *testing.T, file string) cardFile {
	t.Helper()
	var rep cardFile
	if err := json.Unmarshal([]byte(mustRead(t, file)), &rep); err != nil {
		t.Fatalf("card %s: %v", file, err)
	}
	return rep
}

// line is the card's line titled title (zero when it has none).
func (c cardFile) line(title string) cardLine {
	for _, l := range c.Lines {
		if l.Title == title {
			return l
		}
	}
	return cardLine{}
}

func mustRead(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
