//go:build unix

package connect

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// --config reads a regular file of at most 1 MiB: a FIFO, a device or an
// endless file is a clear error, not a hang or a gigabyte read.
func TestLoadServerRefusesSpecialAndHugeFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	huge := filepath.Join(dir, "huge.json")
	if err := os.WriteFile(huge, bytes.Repeat([]byte(" "), maxConfigFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo:        "is not a regular file (it is a FIFO)",
		"/dev/zero": "is not a regular file (it is a character device)",
		dir:         "is not a regular file (it is a directory)",
		huge:        "is over 1048576 bytes",
	} {
		done := make(chan error, 1)
		go func() { _, err := LoadServer(path, ""); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("LoadServer(%s): %v, want %q", path, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("LoadServer(%s) hangs", path)
		}
	}
}
