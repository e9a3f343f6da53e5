package proxy

import (
	"bytes"
	"sync"
)

// maxHeldLine bounds a line a gate holds to look at it whole: past it,
// the line goes on unread.
const maxHeldLine = 8 << 20

// lineGate is one direction of the stdio relay, which is chunk-based,
// with a way in for the proxy's own lines: inject puts a whole line
// between two whole lines of the stream, never inside one. With a
// filter that is active, the stream goes line by line so that the
// filter can drop a line (an answer the host must not get); otherwise a
// chunk is written as it came, in one write.
type lineGate struct {
	mu      sync.Mutex
	write   func([]byte) error
	drop    func(line []byte) bool // nil: nothing is dropped
	active  func() bool            // whether drop may want a line now
	atStart bool                   // the stream is between two lines
	queued  [][]byte               // injected lines waiting for a line's end
	held    []byte                 // a line held to be looked at whole
	holding bool
	err     error // the first write error: the peer is gone
}

func newLineGate(write func([]byte) error) *lineGate {
	return &lineGate{write: write, atStart: true}
}

// pass takes one chunk of the stream.
func (g *lineGate) pass(p []byte) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	filtering := g.drop != nil && g.active != nil && g.active()
	if len(g.queued) == 0 && !filtering && !g.holding {
		g.out(p)
		if len(p) > 0 {
			g.atStart = p[len(p)-1] == '\n'
		}
		return g.err
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		switch {
		case g.holding || g.atStart && filtering:
			if i < 0 {
				g.held = append(g.held, p...)
				g.holding = true
				if len(g.held) > maxHeldLine {
					g.out(g.held)
					g.held, g.holding, g.atStart = nil, false, false
				}
				return g.err
			}
			line := append(g.held, p[:i+1]...)
			g.held, g.holding = nil, false
			if !g.drop(line) {
				g.out(line)
			}
		case i < 0:
			g.out(p)
			g.atStart = false
			return g.err
		default:
			g.out(p[:i+1])
		}
		p = p[i+1:]
		g.atStart = true
		g.flushQueued()
	}
	return g.err
}

// inject writes line (which ends in a newline) now if the stream is
// between lines, or after the line in progress ends.
func (g *lineGate) inject(line []byte) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.atStart && !g.holding {
		g.out(line)
		return g.err
	}
	g.queued = append(g.queued, line)
	return g.err
}

func (g *lineGate) flushQueued() {
	for _, q := range g.queued {
		g.out(q)
	}
	g.queued = nil
}

func (g *lineGate) out(p []byte) {
	if g.err != nil || len(p) == 0 {
		return
	}
	g.err = g.write(p)
}
