package connect

import (
	"fmt"
	"strings"
	"sync"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// discards counts what a server wrote on stdout that could not be used,
// so that an initialize that gets no answer says what came instead.
type discards struct {
	mu                        sync.Mutex
	frames                    int // usable frames
	noise, malformed, boms    int
	oversize, oversizeLargest int
}

// observe is a tap observer; it only counts.
func (d *discards) observe(r wire.Record) {
	if r.Dir != wire.In {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case r.Kind == wire.KindFrame:
		d.frames++
	case r.Kind == wire.KindNoise && r.Why == transport.BOMStripped:
		d.boms++
	case r.Kind == wire.KindNoise:
		d.noise++
	case r.Kind == wire.KindMalformed:
		d.malformed++
	case r.Kind == wire.KindOversize:
		d.oversize++
		d.oversizeLargest = max(d.oversizeLargest, r.Size)
	}
}

// summary says what was discarded, e.g. "discarded while waiting: 1 line
// that is not JSON, 1 frame over the size limit (33 MiB)", or that the
// server wrote nothing on stdout at all.
func (d *discards) summary() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(d.noise, "line that is not JSON", "lines that are not JSON")
	if d.oversize > 0 {
		add(d.oversize, "frame over the size limit", "frames over the size limit")
		parts[len(parts)-1] += fmt.Sprintf(" (%s)", wire.FormatSize(d.oversizeLargest))
	}
	add(d.malformed, "malformed frame", "malformed frames")
	add(d.boms, "byte-order mark", "byte-order marks")
	switch {
	case len(parts) > 0:
		return "discarded while waiting: " + strings.Join(parts, ", ")
	case d.frames == 0:
		return "it wrote nothing on stdout"
	}
	return ""
}
