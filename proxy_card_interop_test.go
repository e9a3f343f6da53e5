package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoSDKClientReportCard grades the official Go SDK's client through
// `mcpoke proxy --url --report`, in both eras: it cancels its sleep by
// context in the form the era calls for (a POSTed notification in
// 2025-11-25; in 2026-07-28 a closed stream, then a notification too),
// never cancels initialize, and asks for progress on its calls.
func TestGoSDKClientReportCard(t *testing.T) {
	client := buildGoSDKClient(t)
	if client == "" {
		t.Skip("the Go SDK client peer does not build here (no module proxy?)")
	}
	bin := buildMcpoke(t)
	for _, c := range []struct{ protocol, form string }{
		{"2025-11-25", "notifications/cancelled"},
		{"2026-07-28", "notifications/cancelled and closed its response stream"},
	} {
		t.Run(c.protocol, func(t *testing.T) {
			upstream, _ := startDemoServer(t, bin, "--http")
			card := filepath.Join(t.TempDir(), "card.json")
			url, stop := startHTTPProxy(t, bin, nil, upstream, "--no-attach", "--report", card)
			out, err := exec.Command(client, "-url", url, "-protocol", c.protocol).CombinedOutput()
			if err != nil {
				t.Fatalf("Go SDK client through the proxy: %v\n%s", err, out)
			}
			stop()
			b, err := os.ReadFile(card)
			if err != nil {
				t.Fatalf("the proxy wrote no card: %v", err)
			}
			var rep cardFile
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatalf("card: %v\n%s", err, b)
			}
			if !strings.HasPrefix(rep.Host, "gosdk-client") || rep.Protocol != c.protocol || rep.Transport != "http" {
				t.Errorf("card header: %s %s %s", rep.Host, rep.Protocol, rep.Transport)
			}
			lines := map[string]cardLine{}
			for _, l := range rep.Lines {
				lines[l.Title] = l
			}
			form := lines["Cancels in the form its era and transport call for"]
			if form.Status != "pass" || len(form.Facts) != 1 || !strings.Contains(form.Facts[0], "(tools/call): "+c.form) {
				t.Errorf("form line: %s %q, want pass for %s", form.Status, form.Facts, c.form)
			}
			if l := lines["Cancels only requests it sent that are still in progress"]; l.Status != "pass" {
				t.Errorf("in-progress line: %s %q", l.Status, l.Facts)
			}
			if l := lines["Asks for progress (a progressToken) on its calls"]; l.Status != "info" || len(l.Facts) == 0 || !strings.Contains(l.Facts[0], "tools/call carried a progressToken") {
				t.Errorf("progress line: %s %q", l.Status, l.Facts)
			}
			t.Logf("%s card:\n%s", c.protocol, b)
		})
	}
}

// cardFile is what the test reads of the card --report writes as JSON
// (the test reads the file as a host's user would, not through
// internal/proxy: main's tests keep main's layer).
type cardFile struct {
	Host      string     `json:"host"`
	Protocol  string     `json:"protocol"`
	Transport string     `json:"transport"`
	Lines     []cardLine `json:"lines"`
}

type cardLine struct {
	Title  string   `json:"title"`
	Status string   `json:"status"`
	Facts  []string `json:"facts"`
}
