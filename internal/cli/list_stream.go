package cli

import (
	"fmt"
	"io"

	"github.com/mcpoke/mcpoke/internal/english"
)

// pageStream prints a list as its pages arrive once it has more than one:
// a server that hands out huge or endless pages shows progress, and
// mcpoke keeps no page after printing it. A list of one page is kept
// (first) and printed whole afterwards, its count in its head line, as
// it always was.
type pageStream[T any] struct {
	// head prints the head line of a list printed page by page; each
	// prints one entry.
	head func()
	each func(T)

	first     []T
	pages     int
	count     int
	streaming bool
}

// page takes one page of the list; more says the server announced
// another.
func (p *pageStream[T]) page(items []T, more bool) {
	p.pages++
	if !p.streaming && p.pages == 1 && !more {
		p.first = items
		return
	}
	if !p.streaming {
		p.streaming = true
		p.head()
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
