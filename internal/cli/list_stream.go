package cli

import (
	"fmt"
	"io"

	"github.com/mcpoke/mcpoke/internal/english"
)

// streamAfter is how many entries a list printed in text may hold
// before it is printed page by page.
const streamAfter = 1000

// pageStream prints a long list as its pages arrive: a server that hands
// out huge or endless pages shows progress, and mcpoke keeps no page
// after printing it. A list of up to streamAfter entries is kept (kept)
// and printed whole afterwards, its count in its head line, as it always
// was, whatever its pages.
type pageStream[T any] struct {
	// head prints the head line of a list printed page by page; each
	// prints one entry.
	head func()
	each func(T)

	kept      []T
	pages     int
	count     int
	streaming bool
}

// page takes one page of the list.
func (p *pageStream[T]) page(items []T, _ bool) {
	p.pages++
	if !p.streaming && len(p.kept)+len(items) <= streamAfter {
		p.kept = append(p.kept, items...)
		return
	}
	if !p.streaming {
		p.streaming = true
		p.head()
		items = append(p.kept, items...)
		p.kept = nil
	}
	for _, it := range items {
		p.each(it)
	}
	p.count += len(items)
}

// tail ends a list printed page by page: how many entries in how many
// pages, and anything else the caller adds ("" for nothing).
func (p *pageStream[T]) tail(w io.Writer, noun, more string) {
	fmt.Fprintf(w, "\n%s in %s%s\n", english.Plural(p.count, noun), english.Plural(p.pages, "page"), more)
}
