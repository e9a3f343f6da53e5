package savefile

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A tool's first binary item (text skipped) is saved decoded, through
// Write: never over a file, never through a symlink.
func TestCallContent(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G', 1, 2}
	result := []byte(`{"content":[{"type":"text","text":"hi"},{"type":"image","mimeType":"image/png","data":"` +
		base64.StdEncoding.EncodeToString(png) + `"},{"type":"audio","mimeType":"audio/wav","data":"AAAA"}]}`)
	dir := t.TempDir()
	b, n, err := CallContent(result, filepath.Join(dir, "a.png"), false)
	if err != nil || n != len(png) || b.Type != "image" || b.MimeType != "image/png" || b.Index != 1 || b.Of != 2 {
		t.Fatalf("CallContent = %+v, %d, %v", b, n, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.png")); string(got) != string(png) {
		t.Errorf("saved %q, want the decoded image", got)
	}
	if _, _, err := CallContent(result, filepath.Join(dir, "a.png"), false); !errors.Is(err, ErrExists) {
		t.Errorf("saving over a file: %v, want ErrExists", err)
	}
	if err := os.Symlink(filepath.Join(dir, "target"), filepath.Join(dir, "link.png")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := CallContent(result, filepath.Join(dir, "link.png"), false); !errors.Is(err, ErrNotRegular) {
		t.Errorf("saving through a dangling symlink: %v, want ErrNotRegular", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "target")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the symlink's target was created: %v", err)
	}
	blob := []byte(`{"content":[{"type":"resource","resource":{"uri":"x://b","mimeType":"application/pdf","blob":"JVBERg=="}}]}`)
	if b, n, err := CallContent(blob, filepath.Join(dir, "b.pdf"), false); err != nil || n != 4 || b.Type != "resource" || b.MimeType != "application/pdf" {
		t.Errorf("embedded blob: %+v, %d, %v", b, n, err)
	}
	if _, ok := CallBinary([]byte(`{"content":[{"type":"text","text":"x"}]}`)); ok {
		t.Error("a text-only result has a binary item")
	}
	if _, _, err := CallContent([]byte(`{"content":[{"type":"image","mimeType":"image/png","data":"!!"}]}`), filepath.Join(dir, "c"), false); err == nil {
		t.Error("bad base64 was saved")
	}
}
