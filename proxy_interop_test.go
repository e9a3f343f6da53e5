package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestGoSDKClientThroughProxyOverHTTP runs the official Go SDK's client
// as the host through `mcpoke proxy --url` to the demo server, in both
// eras: its calls pass, and its cancel shows in the proxy's records as
// the host did it (notifications/cancelled in 2025-11-25, a closed
// response stream in 2026-07-28).
func TestGoSDKClientThroughProxyOverHTTP(t *testing.T) {
	client := buildGoSDKClient(t)
	if client == "" {
		t.Skip("the Go SDK client peer does not build here (no module proxy?)")
	}
	bin := buildMcpoke(t)
	for _, c := range []struct{ name, protocol, cancel string }{
		{"2025-11-25", "2025-11-25", `"method":"notifications/cancelled"`},
		{"2026-07-28", "", `"relay":"the host closed the response stream of request `},
	} {
		t.Run(c.name, func(t *testing.T) {
			upstream, _ := startDemoServer(t, bin, "--http")
			records := filepath.Join(t.TempDir(), "proxy.ndjson")
			url, _ := startHTTPProxy(t, bin, nil, upstream, "--no-attach", "--transcript", records)
			args := []string{"-url", url}
			if c.protocol != "" {
				args = append(args, "-protocol", c.protocol)
			}
			out, err := exec.Command(client, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("Go SDK client through the proxy: %v\n%s", err, out)
			}
			for _, w := range []string{"connected: mcpoke-demo", "echo: hello over HTTP", "4 progress notifications", "cancelled: sleep"} {
				if !strings.Contains(string(out), w) {
					t.Errorf("client output lacks %q:\n%s", w, out)
				}
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				b, _ := os.ReadFile(records)
				if strings.Contains(string(b), c.cancel) && strings.Contains(string(b), `"gosdk-client"`) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the proxy's records lack the host's cancel (%s) or its initialize:\n%s", c.cancel, b)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// proxyAddress reads the proxy's stderr for the address it says to point
// the host at, and drains the rest so that the proxy never blocks on it.
func proxyAddress(t *testing.T, pipe io.Reader) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		re := regexp.MustCompile(`point the host at (\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		io.Copy(io.Discard, pipe)
	}()
	select {
	case url := <-found:
		return url
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy printed no address within 10s")
	}
	return ""
}

// TestGoSDKClientThroughProxyOverStdio runs the Go SDK's client as the
// host of a stdio proxy (it starts `mcpoke proxy -- mcpoke demo-server`),
// in both eras: its calls pass, and its cancel is in the records as
// notifications/cancelled from the host, followed by the host closing
// its input and the server's exit.
func TestGoSDKClientThroughProxyOverStdio(t *testing.T) {
	client := buildGoSDKClient(t)
	if client == "" {
		t.Skip("the Go SDK client peer does not build here (no module proxy?)")
	}
	bin := buildMcpoke(t)
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			records := filepath.Join(t.TempDir(), "proxy.ndjson")
			cmd := exec.Command(client, "-protocol", protocol, "-stdio", bin, "proxy", "--no-attach", "--transcript", records, "--", bin, "demo-server")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("Go SDK client through the stdio proxy: %v\n%s", err, out)
			}
			for _, w := range []string{"connected: mcpoke-demo, protocol " + protocol, "echo: hello over HTTP", "4 progress notifications", "cancelled: sleep"} {
				if !strings.Contains(string(out), w) {
					t.Errorf("client output lacks %q:\n%s", w, out)
				}
			}
			// The client waited for the proxy to exit: the records are whole.
			b, err := os.ReadFile(records)
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			cancel := regexp.MustCompile(`"dir":"out","msg":\{[^\n]*"method":"notifications/cancelled"`)
			for what, ok := range map[string]bool{
				"the host's cancel":     cancel.MatchString(text),
				"the host's name":       strings.Contains(text, `"gosdk-client"`),
				"the host closing":      strings.Contains(text, `"relay":"the host closed its input"`),
				"the server's exit":     strings.Contains(text, `"relay":"server exited with status 0"`),
				"the era's own opening": strings.Contains(text, map[string]string{"2025-11-25": `"method":"initialize"`, "2026-07-28": `"method":"server/discover"`}[protocol]),
			} {
				if !ok {
					t.Errorf("the proxy's records lack %s:\n%s", what, text)
				}
			}
		})
	}
}
