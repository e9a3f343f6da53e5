package mcp

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mcpoke/mcpoke/session"
)

// Root is one entry of roots/list: a directory the server may work in.
type Root struct {
	// URI is a file:// URI, the only kind the spec allows.
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ParseRoot reads a root as a person gives it: a directory (relative to
// base when not absolute) or a file:// URI. A directory must exist, as the
// spec asks clients to validate roots before exposing them; a URI is kept
// as it is, for a server elsewhere.
func ParseRoot(s, base string) (Root, error) {
	if strings.HasPrefix(s, "file://") {
		u, err := url.Parse(s)
		if err != nil || u.Path == "" {
			return Root{}, fmt.Errorf("root %q is not a file:// URI with a path", s)
		}
		return Root{URI: s, Name: filepath.Base(u.Path)}, nil
	}
	if strings.Contains(s, "://") {
		return Root{}, fmt.Errorf("root %q: roots are directories or file:// URIs", s)
	}
	dir := s
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(base, dir)
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Root{}, fmt.Errorf("root %q: %w", s, err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return Root{}, fmt.Errorf("root %q: %w", s, err)
	}
	if !st.IsDir() {
		return Root{}, fmt.Errorf("root %q is not a directory", s)
	}
	return Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String(), Name: filepath.Base(dir)}, nil
}

// RootList is the roots mcpoke offers a server, which a person may add to
// while the session runs. It is safe for use from many goroutines.
type RootList struct {
	mu    sync.Mutex
	roots []Root
}

// NewRootList returns a list holding roots, without duplicates.
func NewRootList(roots ...Root) *RootList {
	l := &RootList{}
	for _, r := range roots {
		l.Add(r)
	}
	return l
}

// Roots returns a copy of the list.
func (l *RootList) Roots() []Root {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.roots)
}

// Add appends r unless a root with its URI is there; it reports whether
// the list changed, when notifications/roots/list_changed is due.
func (l *RootList) Add(r Root) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, have := range l.roots {
		if have.URI == r.URI {
			return false
		}
	}
	l.roots = append(l.roots, r)
	return true
}

// answerRootsList answers roots/list with the list as it is now: an
// empty list is [], never null, which the schema's required array is not.
func (l *RootList) answerRootsList(context.Context, *session.Incoming) (any, error) {
	roots := l.Roots()
	if roots == nil {
		roots = []Root{}
	}
	return struct {
		Roots []Root `json:"roots"`
	}{roots}, nil
}

// NotifyRootsChanged tells the server the roots changed
// (notifications/roots/list_changed), as a client that declared
// roots.listChanged must.
func NotifyRootsChanged(s *session.Session) error {
	return s.Notify("notifications/roots/list_changed", nil)
}
