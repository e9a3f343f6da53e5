package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTmuxResourcesSubscribeAndSave drives the resources pane of the real
// binary in both eras: subscribe to the demo's ticker and see its updates
// marked (resources/subscribe in 2025-11-25, subscriptions/listen in
// 2026-07-28, the default on the demo), probe the server with p, cancel a
// slow read, save the logo to a file from the read's detail.
func TestTmuxResourcesSubscribeAndSave(t *testing.T) {
	for _, era := range []struct {
		name       string
		args       []string
		subscribed string
		probe      string
	}{
		{"2025-11-25", []string{"--protocol", "2025-11-25"}, "subscribed to demo://ticker; s again", "ping #"},
		{"2026-07-28", nil, "subscribed to demo://ticker through subscriptions/listen #",
			"(the era's liveness probe: this protocol has no ping)"},
	} {
		t.Run(era.name, func(t *testing.T) {
			x := startTmux(t, era.args...)
			x.waitFor("MCP " + era.name)
			x.keys("p")
			x.waitFor(era.probe, "answered: ")
			x.keys("2")
			x.waitFor("RESOURCES 5", "demo://logo.png")
			x.keys("j", "j", "s")
			x.waitFor(era.subscribed)
			// The demo ticks every 3s: the mark shows within the wait.
			x.waitFor("subscribed updated ×1")
			x.keys("k", "Enter")
			x.waitFor("resources/read demo://slow", "pending")
			x.keys("c")
			x.waitFor(`cancel requested for #`, "⊘ cancelled")

			path := filepath.Join(t.TempDir(), "logo.png")
			x.keys("j", "j", "Enter")
			x.waitFor("[blob] demo://logo.png (image/png), 81 B", "enter here saves the contents to a file")
			x.keys("Tab", "Tab", "Enter")
			x.waitFor("save the contents of #")
			x.keys("C-u")
			if out, err := x.run("send-keys", "-t", "ui", "-l", path); err != nil {
				t.Fatalf("send-keys: %v: %s", err, out)
			}
			x.keys("Enter")
			x.waitFor("saved 81 B to")
			if b, err := os.ReadFile(path); err != nil || len(b) != 81 || string(b[1:4]) != "PNG" {
				t.Fatalf("saved %d bytes %v", len(b), err)
			}
		})
	}
}
