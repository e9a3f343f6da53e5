package auth

import (
	"fmt"
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
