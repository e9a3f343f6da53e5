package auth

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestStoreLosesNoConcurrentSave: saves from many writers (each its own
// Store, so its own lock file handle, as two processes would have) all
// end in the file: the read-modify-write runs under the lock.
func TestStoreLosesNoConcurrentSave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "credentials.json")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			s := &Store{Path: path}
			if err := s.Save(Entry{Issuer: "https://as", Resource: fmt.Sprintf("https://r/%d", i), Server: fmt.Sprintf("https://r/%d", i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	entries, err := (&Store{Path: path}).List()
	if err != nil || len(entries) != 16 {
		t.Fatalf("%d entries, %v; want all 16 saves", len(entries), err)
	}
}

func TestStoreKeysByIssuerAndResource(t *testing.T) {
	s := &Store{Path: filepath.Join(t.TempDir(), "c.json")}
	a := Entry{Issuer: "https://a", Resource: "https://r/mcp", Server: "https://r/mcp", ClientID: "1"}
	b := Entry{Issuer: "https://b", Resource: "https://r/mcp", Server: "https://r/mcp", ClientID: "2"}
	s.Save(a)
	s.Save(b)
	a.ClientID = "1b"
	s.Save(a)
	if e, _ := s.Lookup("https://a", "https://r/mcp"); e.ClientID != "1b" {
		t.Errorf("issuer a: client %q; want the replaced 1b", e.ClientID)
	}
	if e, _ := s.Lookup("https://b", "https://r/mcp"); e.ClientID != "2" {
		t.Errorf("issuer b: client %q; want 2, kept apart", e.ClientID)
	}
	if n, _ := s.Delete("https://r/mcp"); n != 2 {
		t.Errorf("logout removed %d entries; want both issuers'", n)
	}
}

// The store writes the credentials file for its owner only (0600), in a
// directory only its owner enters (0700): checked straight after Save,
// before any read, since a read would quietly fix a wrong mode.
func TestStoreWritesOwnerOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcpoke")
	s := &Store{Path: filepath.Join(dir, "credentials.json")}
	for i := range 2 { // the first save creates the file, the second replaces it
		if err := s.Save(Entry{Issuer: "https://as", Resource: "https://r/mcp", Server: "https://r/mcp", AccessToken: fmt.Sprint("at-", i)}); err != nil {
			t.Fatal(err)
		}
		for path, want := range map[string]os.FileMode{s.Path: 0o600, s.Path + ".lock": 0o600, dir: 0o700} {
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != want {
				t.Errorf("save %d: %s has mode %04o; want %04o", i+1, filepath.Base(path), got, want)
			}
		}
	}
}

// Logging out of one server counts its entries alone and keeps the
// other servers' entries.
func TestStoreDeleteCountsOnlyThatServer(t *testing.T) {
	s := &Store{Path: filepath.Join(t.TempDir(), "c.json")}
	for _, e := range []Entry{
		{Issuer: "https://a", Resource: "https://r/mcp", Server: "https://r/mcp"},
		{Issuer: "https://a", Resource: "https://other/mcp", Server: "https://other/mcp"},
		{Issuer: "https://b", Resource: "https://other/mcp", Server: "https://other/mcp"},
	} {
		if err := s.Save(e); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.Delete("https://r/mcp"); n != 1 || err != nil {
		t.Errorf("logout of https://r/mcp removed %d entries (%v); want its 1", n, err)
	}
	if left, _ := s.List(); len(left) != 2 || left[0].Server != "https://other/mcp" || left[1].Server != "https://other/mcp" {
		t.Errorf("entries left %+v; want the other server's 2", left)
	}
}
