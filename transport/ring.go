package transport

import "sync"

// ring keeps the last lines a server wrote to stderr. It is bounded so a
// chatty server cannot grow mcpoke's memory.
type ring struct {
	mu    sync.Mutex
	lines []string
	next  int // slot the next line goes to
	full  bool
}

func newRing(size int) *ring {
	if size < 1 {
		size = 1
	}
	return &ring{lines: make([]string, size)}
}

func (r *ring) add(line string) {
	r.mu.Lock()
	r.lines[r.next] = line
	r.next++
	if r.next == len(r.lines) {
		r.next, r.full = 0, true
	}
	r.mu.Unlock()
}

// last returns up to n of the newest lines, oldest first, in a new slice.
func (r *ring) last(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	have := r.next
	if r.full {
		have = len(r.lines)
	}
	n = min(n, have)
	if n <= 0 {
		return nil
	}
	out := make([]string, n)
	start := r.next - n
	if start < 0 {
		start += len(r.lines)
	}
	for i := range out {
		out[i] = r.lines[(start+i)%len(r.lines)]
	}
	return out
}
