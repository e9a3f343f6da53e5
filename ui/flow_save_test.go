package ui

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// conformanceDemoConn is the demo server with --conformance-tools (its
// image and audio fixtures) on an in-memory pipe.
func conformanceDemoConn(t *testing.T, clock *clocktest.Clock) *connect.Conn {
	a, b := transporttest.Pipe()
	srv := demo.ServeConn("flow", b, io.Discard, demo.Options{ConformanceTools: true})
	conn := connect.Attach(connect.Spec{Name: "demo"}, a, connect.Options{Session: session.Config{Clock: clock}})
	t.Cleanup(func() {
		conn.Close()
		srv.Close()
	})
	return conn
}

// A tool's image shows as type, MIME type and size; enter on its detail
// saves it, decoded, through savefile: never over a file.
func TestFlowSaveToolImage(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, conformanceDemoConn(t, clock), false)
	f.waitScreen("2 completed")
	f.keys("/")
	f.typeText("test_image")
	f.keys("enter")
	f.waitScreen("test_image_content")
	f.keys("enter")
	f.waitScreen("CALL ")
	f.keys("enter")
	f.keys("tab")
	f.golden("image", "[image] image/png", "enter here saves the image (image/png) to a file")
	f.keys("enter", "enter") // into the detail, then save
	f.waitScreen("save the image (image/png) of", "./image.png")
	path := filepath.Join(t.TempDir(), "logo.png")
	f.keys("ctrl+u")
	f.typeText(path)
	f.keys("enter")
	f.waitScreen("saved 81 B to")
	if b, err := os.ReadFile(path); err != nil || len(b) != 81 || string(b[1:4]) != "PNG" {
		t.Fatalf("saved %d bytes (%.8q), %v; want the demo's 81-byte PNG", len(b), b, err)
	}
	f.keys("enter", "ctrl+u")
	f.typeText(path)
	f.keys("enter")
	f.waitScreen("not saved: the file exists")
}
