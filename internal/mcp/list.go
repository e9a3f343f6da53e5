package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// Defaults for ListOptions.
const (
	// DefaultMaxPages bounds paging against a server that keeps returning
	// cursors.
	DefaultMaxPages = 100
	// DefaultListTimeout bounds each list request.
	DefaultListTimeout = 30 * time.Second
	// DefaultMaxEntries and DefaultMaxBytes bound what a list keeps, so
	// that a server sending a million entries, or huge ones, cannot
	// make mcpoke hold them all.
	DefaultMaxEntries = 50_000
	DefaultMaxBytes   = 8 << 20
)

// ListOptions bound a paged list request. The zero value uses the
// defaults.
type ListOptions struct {
	// MaxPages is how many pages are read at most; 0 means
	// DefaultMaxPages.
	MaxPages int
	// MaxEntries and MaxBytes bound what a list keeps, in entries and in
	// their bytes as sent, whatever the size of each page; 0 means
	// DefaultMaxEntries and DefaultMaxBytes. A list cut there is
	// Incomplete (ErrListTooLong).
	MaxEntries int
	MaxBytes   int
	// Timeout bounds each page's request; 0 means DefaultListTimeout, a
	// negative value no bound but ctx.
	Timeout time.Duration
	// MaxTimeout bounds the whole list, every page; 0 or negative, no
	// bound but Timeout on each page.
	MaxTimeout time.Duration
	// Force sends the request even when the server did not declare its
	// capability; without it that is a *CapabilityError (ErrNotDeclared).
	Force bool
	// RejectBadHeaders drops tools whose x-mcp-header marks break the
	// rules (HeaderParams), as clients over Streamable HTTP MUST in
	// protocol 2026-07-28; ToolList.Rejected says which and why.
	RejectBadHeaders bool
}

// Paging stopped before the server's last page. The list holds what came
// before; callers show the error as a warning.
var (
	// ErrRepeatedCursor: the server sent a cursor it had sent before, so
	// following it would loop.
	ErrRepeatedCursor = errors.New("the server repeated a nextCursor")
	// ErrTooManyPages: the server still had a nextCursor after MaxPages.
	ErrTooManyPages = errors.New("the server sent too many pages")
	// ErrListTooLong: the entries kept reached MaxEntries or MaxBytes.
	ErrListTooLong = errors.New("the list is longer than mcpoke keeps")
)

// ToolList is what ListTools read.
type ToolList struct {
	Tools []Tool
	// Count is how many tools were read (StreamTools keeps none).
	Count int
	// Pages is how many pages were read.
	Pages int
	// Incomplete is set (wrapping ErrRepeatedCursor or ErrTooManyPages)
	// when paging stopped before the last page: Tools is then what came
	// before it. Show it; do not take the list for the whole.
	Incomplete error
	// Rejected are the tools ListOptions.RejectBadHeaders dropped.
	Rejected []RejectedTool
	// Cache is what the first page says about itself: resultType and, in
	// the modern era, ttlMs and cacheScope.
	Cache ResultMeta
}

// RejectedTool is a tool left out of the list, and why.
type RejectedTool struct {
	Name string
	Why  error
}

// ListTools sends tools/list, following nextCursor to the last page. A
// failed request, a malformed result or a malformed tool is an error; a
// list cut short is not, see ToolList.Incomplete. A server that did not
// declare tools is sent nothing unless opts.Force: the error is then a
// *CapabilityError.
func ListTools(ctx context.Context, s *session.Session, opts ListOptions) (ToolList, error) {
	var kept []Tool
	list, err := StreamTools(ctx, s, opts, func(page []Tool, _ bool) { kept = append(kept, page...) })
	list.Tools = kept
	return list, err
}

// StreamTools is ListTools handing each page's tools to page as the page
// is read (more: the server says another page follows), and keeping none:
// the list's Count says how many there were.
func StreamTools(ctx context.Context, s *session.Session, opts ListOptions, pageOf func(ts []Tool, more bool)) (ToolList, error) {
	var list ToolList
	err := listPages(ctx, s, "tools/list", opts, &list.Pages, func(page json.RawMessage, keep *listBudget) (string, error) {
		var got []Tool
		var p struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(page, &p); err != nil {
			return "", fmt.Errorf("malformed result: %w", err)
		}
		if list.Pages == 1 {
			list.Cache = ReadResultMeta(page)
		}
		for _, raw := range p.Tools {
			if !keep.take(raw) {
				break
			}
			t, err := ParseTool(raw)
			if err != nil {
				return "", err
			}
			if _, err := HeaderParams(t.InputSchema); err != nil && opts.RejectBadHeaders {
				list.Rejected = append(list.Rejected, RejectedTool{t.Name, err})
				continue
			}
			got = append(got, t)
		}
		list.Count += len(got)
		pageOf(got, p.NextCursor != "")
		return p.NextCursor, nil
	})
	var stopped *pagingStopped
	if errors.As(err, &stopped) {
		list.Incomplete = stopped.err
		return list, nil
	}
	return list, err
}

// pagingStopped carries the reason paging stopped early out of listPages.
type pagingStopped struct{ err error }

func (p *pagingStopped) Error() string { return p.err.Error() }

// listPages sends method page by page until a page has no nextCursor;
// read takes one page's result and returns its nextCursor. Every MCP
// list method pages the same way.
func listPages(ctx context.Context, s *session.Session, method string, opts ListOptions, pages *int,
	read func(json.RawMessage, *listBudget) (string, error)) error {
	if opts.MaxPages <= 0 {
		opts.MaxPages = DefaultMaxPages
	}
	switch {
	case opts.Timeout == 0:
		opts.Timeout = DefaultListTimeout
	case opts.Timeout < 0:
		opts.Timeout = 0
	}
	if !opts.Force {
		if err := CheckDeclared(s.Peer(), method); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	cursor := ""
	keep := newListBudget(opts)
	clk := s.Clock()
	start := clk.Now()
	for {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		call := session.CallOptions{Timeout: opts.Timeout, NoProgressToken: true, MaxTimeout: -1}
		if opts.MaxTimeout > 0 {
			left := opts.MaxTimeout - clk.Now().Sub(start)
			if left <= 0 {
				return fmt.Errorf("%s: gave up after %s in all (the maximum), before page %d", method, opts.MaxTimeout, *pages+1)
			}
			call.MaxTimeout = left
		}
		res, err := s.Do(ctx, method, params, call)
		if errors.Is(err, session.ErrTimedOut) {
			// The session's error says which bound: "timeout after 5s".
			return fmt.Errorf("%s, page %d: %w (the list had run %s)", method, *pages+1, err, clk.Now().Sub(start).Round(time.Millisecond))
		}
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		*pages++
		next, err := read(res, keep)
		res = nil // the page is not kept: what matters of it was read
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if keep.cut {
			return &pagingStopped{fmt.Errorf("%s: %w: kept the first %d entries (%s) and left out the rest from page %d on",
				method, ErrListTooLong, keep.entries, byteSize(keep.bytes), *pages)}
		}
		switch {
		case next == "":
			return nil
		case seen[next]:
			return &pagingStopped{fmt.Errorf("%s: %w (%q after %d pages); the list may be incomplete",
				method, ErrRepeatedCursor, clip(next, 40), *pages)}
		case *pages >= opts.MaxPages:
			return &pagingStopped{fmt.Errorf("%s: %w (still a nextCursor after %d pages); the list may be incomplete",
				method, ErrTooManyPages, *pages)}
		}
		seen[next] = true
		cursor = next
	}
}

// listBudget counts what a paged list keeps, and says when to stop.
type listBudget struct {
	maxEntries, maxBytes int
	entries, bytes       int
	// cut: an entry was refused; the list stops there.
	cut bool
}

func newListBudget(opts ListOptions) *listBudget {
	b := &listBudget{maxEntries: opts.MaxEntries, maxBytes: opts.MaxBytes}
	if b.maxEntries <= 0 {
		b.maxEntries = DefaultMaxEntries
	}
	if b.maxBytes <= 0 {
		b.maxBytes = DefaultMaxBytes
	}
	return b
}

// take counts raw as kept, or reports that the list is full.
func (b *listBudget) take(raw json.RawMessage) bool {
	if b.cut || b.entries >= b.maxEntries || b.bytes+len(raw) > b.maxBytes {
		b.cut = true
		return false
	}
	b.entries++
	b.bytes += len(raw)
	return true
}

// byteSize is n bytes in words: "512 B", "3.2 MB".
func byteSize(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

// streamPages lists method's pages, reading each with read and handing
// its items to page as the page is read (more: another follows), keeping
// none; count is how many there were, incomplete why the list stopped
// short, if it did.
func streamPages[T any](ctx context.Context, s *session.Session, method string, opts ListOptions, pages *int,
	read func(json.RawMessage, *listBudget) ([]T, string, error), page func([]T, bool)) (count int, incomplete, err error) {
	err = listPages(ctx, s, method, opts, pages, func(raw json.RawMessage, keep *listBudget) (string, error) {
		got, next, err := read(raw, keep)
		if err != nil {
			return "", err
		}
		count += len(got)
		page(got, next != "")
		return next, nil
	})
	incomplete, err = stoppedEarly(err)
	return count, incomplete, err
}
