package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gofrs/flock"
)

// Entry is what mcpoke keeps for one resource (an MCP server) at one
// authorization server: the client it is there and the tokens it got.
// Entries are keyed by Issuer and Resource together; a client or token
// is never used with another authorization server.
type Entry struct {
	Issuer   string `json:"issuer"`
	Resource string `json:"resource"`
	// Server is the MCP server's URL as the user gave it, to find the
	// entry again before any discovery.
	Server string `json:"server"`

	// The client: how mcpoke is known to the issuer. Registration is
	// "pre-registered", "metadata-document" or "dynamic".
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	Registration string `json:"registration"`
	// AuthMethod is the token endpoint authentication: none,
	// client_secret_basic or client_secret_post.
	AuthMethod    string `json:"token_endpoint_auth_method"`
	RedirectURI   string `json:"redirect_uri,omitempty"`
	TokenEndpoint string `json:"token_endpoint"`

	// The grant.
	Scopes       []string  `json:"scopes,omitempty"`
	AccessToken  string    `json:"access_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Saved        time.Time `json:"saved,omitzero"`
}

// credentialsFile is the file's content.
type credentialsFile struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

// Store is the credentials file: mode 0600, written atomically (a
// temporary file renamed over it) under an exclusive lock on a sibling
// .lock file, so that two mcpoke processes never lose each other's
// tokens.
type Store struct {
	Path string
	// Warn receives what the store fixed (a file others could read).
	Warn func(string)
}

// DefaultStorePath is $XDG_CONFIG_HOME/mcpoke/credentials.json (the
// platform's user config directory when XDG_CONFIG_HOME is unset).
func DefaultStorePath() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		d, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("cannot find a directory for the credentials file: %w; set XDG_CONFIG_HOME", err)
		}
		dir = d
	}
	return filepath.Join(dir, "mcpoke", "credentials.json"), nil
}

// ErrNotFound means no entry for that issuer and resource.
var ErrNotFound = errors.New("no saved credentials")

// Lookup returns the entry of the MCP server at serverURL with issuer,
// or, with issuer "", its most recently saved entry.
func (s *Store) Lookup(issuer, serverURL string) (Entry, error) {
	var found Entry
	err := s.locked(false, func(f *credentialsFile) error {
		for _, e := range f.Entries {
			if e.Server == serverURL && (issuer == "" || e.Issuer == issuer) && (found.Resource == "" || e.Saved.After(found.Saved)) {
				found = e
			}
		}
		if found.Resource == "" {
			return ErrNotFound
		}
		return nil
	})
	return found, err
}

// List returns every entry.
func (s *Store) List() ([]Entry, error) {
	var out []Entry
	err := s.locked(false, func(f *credentialsFile) error {
		out = slices.Clone(f.Entries)
		return nil
	})
	return out, err
}

// Save puts e in place of the entry with its issuer and resource.
func (s *Store) Save(e Entry) error {
	return s.locked(true, func(f *credentialsFile) error {
		f.Entries = slices.DeleteFunc(f.Entries, func(o Entry) bool { return o.Issuer == e.Issuer && o.Resource == e.Resource })
		f.Entries = append(f.Entries, e)
		return nil
	})
}

// Delete removes the entries of the server at serverURL (every issuer);
// it returns how many there were.
func (s *Store) Delete(serverURL string) (int, error) {
	n := 0
	err := s.locked(true, func(f *credentialsFile) error {
		before := len(f.Entries)
		f.Entries = slices.DeleteFunc(f.Entries, func(o Entry) bool { return o.Server == serverURL })
		n = before - len(f.Entries)
		return nil
	})
	return n, err
}

// locked reads the file under the lock, runs fn and, when write, writes
// the result back.
func (s *Store) locked(write bool, fn func(*credentialsFile) error) error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("cannot create the directory of %s: %w", s.Path, err)
	}
	lockPath := s.Path + ".lock"
	if err := refuseLink(lockPath, "lock file"); err != nil {
		return err
	}
	lock := flock.New(lockPath, flock.SetPermissions(0o600), flock.SetFlag(os.O_CREATE|os.O_RDWR|noFollow))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("cannot lock %s: %w", s.Path, err)
	}
	defer lock.Unlock()
	var f credentialsFile
	data, err := s.read()
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(data, &f); err != nil {
			return fmt.Errorf("%s is not a credentials file mcpoke can read (%v); move it away to start afresh", s.Path, err)
		}
	}
	if err := fn(&f); err != nil || !write {
		return err
	}
	f.Version = 1
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(s.Path, append(out, '\n'))
}

// read reads the file, first taking away the access of group and others
// when they have some: a credentials file only its owner reads. A
// symbolic link is refused, never followed: mcpoke would chmod, read and
// then replace whatever it points to.
func (s *Store) read() ([]byte, error) {
	if err := refuseLink(s.Path, "credentials file"); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(s.Path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("the credentials file %s is not a regular file; move it away to start afresh", s.Path)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return nil, fmt.Errorf("%s can be read by others (mode %04o) and mcpoke cannot fix it: %w; run chmod 600 on it", s.Path, perm, err)
		}
		if s.Warn != nil {
			s.Warn(fmt.Sprintf("%s could be read by others (mode %04o); mcpoke set it to 0600. Consider logging out and in again if others may have read it", s.Path, perm))
		}
	}
	return io.ReadAll(f)
}

// refuseLink refuses a symbolic link at path (what names it), dangling or
// not; nothing there is fine.
func refuseLink(path, what string) error {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	return fmt.Errorf("the %s %s is a symbolic link; mcpoke never follows one there (others could point it at a file of yours): replace it with a regular file or remove it", what, path)
}

// writeAtomic writes data to a temporary file of mode 0600 beside path
// and renames it over path.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".credentials-*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write the credentials file: %w", err)
	}
	name := tmp.Name()
	defer os.Remove(name)
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("cannot write the credentials file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("cannot replace %s: %w", path, err)
	}
	return nil
}
