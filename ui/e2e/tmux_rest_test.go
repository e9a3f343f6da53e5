package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTmuxResourcesSubscribeAndSave drives the resources pane of the real
// binary: subscribe to the demo's ticker and see its updates marked, cancel
// a slow read, save the logo to a file from the read's detail.
func TestTmuxResourcesSubscribeAndSave(t *testing.T) {
	// resources/subscribe is 2025-11-25's: 2026-07-28 subscribes with
	// subscriptions/listen instead.
	x := startTmux(t, "--protocol", "2025-11-25")
	x.keys("2")
	x.waitFor("RESOURCES 5", "demo://logo.png")
	x.keys("j", "j", "s")
	x.waitFor("subscribed to demo://ticker")
	// The demo ticks every 3s: the mark shows within the wait.
	x.waitFor("subscribed updated ×1")
	x.keys("k", "Enter")
	x.waitFor("resources/read demo://slow", "pending")
	x.keys("c")
	x.waitFor(`cancelling #`, "⊘ cancelled")

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
}
