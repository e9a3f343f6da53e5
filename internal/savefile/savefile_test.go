package savefile

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReadContents is the one test of the save both read --out and the
// TUI use: a new file is written; an existing one is kept unless
// overwriting; a symlink, dangling or not, is never written through,
// not even when overwriting; a directory is refused.
func TestReadContents(t *testing.T) {
	blob := []byte{0x89, 'P', 'N', 'G', 0}
	result := []byte(`{"contents":[{"uri":"x://a","blob":"` + base64.StdEncoding.EncodeToString(blob) + `"},{"uri":"x://b","text":"b"}]}`)
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	mine := []byte("mine, to keep")
	write := func(name string) {
		t.Helper()
		if err := os.WriteFile(at(name), mine, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	kept := func(name string) {
		t.Helper()
		if got, err := os.ReadFile(at(name)); err != nil || string(got) != string(mine) {
			t.Errorf("%s: %q, %v; want it untouched", name, got, err)
		}
	}

	// A new file.
	saved, err := ReadContents(result, at("new.png"), false)
	if err != nil || saved.Bytes != len(blob) || saved.Of != 2 {
		t.Fatalf("new file: %+v, %v", saved, err)
	}
	if got, _ := os.ReadFile(at("new.png")); string(got) != string(blob) {
		t.Errorf("new file holds %q, want the decoded blob", got)
	}

	// An existing file: refused, unless overwriting, which keeps its mode.
	write("old.png")
	if _, err := ReadContents(result, at("old.png"), false); !errors.Is(err, ErrExists) {
		t.Errorf("existing file without overwrite: %v, want ErrExists", err)
	}
	kept("old.png")
	if err := Check(at("old.png"), false); !errors.Is(err, ErrExists) {
		t.Errorf("Check existing file: %v, want ErrExists", err)
	}
	if _, err := ReadContents(result, at("old.png"), true); err != nil {
		t.Fatalf("overwrite a regular file: %v", err)
	}
	if got, _ := os.ReadFile(at("old.png")); string(got) != string(blob) {
		t.Errorf("overwritten file holds %q", got)
	}
	if st, _ := os.Stat(at("old.png")); st.Mode().Perm() != 0o600 {
		t.Errorf("overwritten file has mode %v, want its old 0600", st.Mode().Perm())
	}

	// A dangling symlink: its target is never created.
	if err := os.Symlink(at("target.png"), at("dangling.png")); err != nil {
		t.Fatal(err)
	}
	for _, overwrite := range []bool{false, true} {
		if _, err := ReadContents(result, at("dangling.png"), overwrite); !errors.Is(err, ErrNotRegular) {
			t.Errorf("dangling symlink (overwrite %v): %v, want ErrNotRegular", overwrite, err)
		}
		if err := Check(at("dangling.png"), overwrite); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Check dangling symlink (overwrite %v): %v", overwrite, err)
		}
	}
	if _, err := os.Lstat(at("target.png")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dangling symlink's target was created: %v", err)
	}

	// A symlink to a file: never written through.
	write("victim")
	if err := os.Symlink(at("victim"), at("link.png")); err != nil {
		t.Fatal(err)
	}
	for _, overwrite := range []bool{false, true} {
		if _, err := ReadContents(result, at("link.png"), overwrite); !errors.Is(err, ErrNotRegular) {
			t.Errorf("symlink to a file (overwrite %v): %v, want ErrNotRegular", overwrite, err)
		}
	}
	kept("victim")

	// A directory.
	if err := os.Mkdir(at("dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadContents(result, at("dir"), true); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v, want ErrNotRegular", err)
	}

	// Nothing to save: no file made.
	if _, err := ReadContents([]byte(`{"contents":[]}`), at("empty"), false); err == nil {
		t.Error("empty contents saved")
	}
	if _, err := os.Lstat(at("empty")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty contents left a file: %v", err)
	}
	// No temporary file left behind.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".tmp" {
			t.Errorf("left behind %s", e.Name())
		}
	}
}
