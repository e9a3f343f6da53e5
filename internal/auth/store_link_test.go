package auth

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreRefusesSymlinks: a credentials file or lock file that is a
// symbolic link is refused with a clear error; its target is neither
// chmod'ed, read, replaced nor created.
func TestStoreRefusesSymlinks(t *testing.T) {
	t.Run("credentials file", func(t *testing.T) {
		dir := t.TempDir()
		victim := filepath.Join(dir, "victim")
		if err := os.WriteFile(victim, []byte(`{"version":1,"entries":[]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "credentials.json")
		if err := os.Symlink(victim, path); err != nil {
			t.Fatal(err)
		}
		s := &Store{Path: path}
		for name, op := range map[string]func() error{
			"List": func() error { _, err := s.List(); return err },
			"Save": func() error { return s.Save(Entry{Issuer: "https://as", Resource: "https://r", Server: "https://r"}) },
		} {
			err := op()
			if err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
				t.Errorf("%s through a symlinked credentials file: %v; want a refusal naming the link", name, err)
			}
		}
		if st, _ := os.Stat(victim); st.Mode().Perm() != 0o644 {
			t.Errorf("the link's target was chmod'ed to %v", st.Mode().Perm())
		}
		if st, _ := os.Lstat(path); st.Mode()&fs.ModeSymlink == 0 {
			t.Error("the link was replaced")
		}
	})
	t.Run("lock file", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "credentials.json")
		target := filepath.Join(dir, "created-through-the-link")
		if err := os.Symlink(target, path+".lock"); err != nil {
			t.Fatal(err)
		}
		_, err := (&Store{Path: path}).List()
		if err == nil || !strings.Contains(err.Error(), "lock file") || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("a symlinked lock file: %v; want a refusal naming it", err)
		}
		if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the lock link's target was created: %v", err)
		}
	})
}
