package transport

import "runtime"

// spillBlockMin and spillBlockMax bound the blocks of a spill: a line
// that spans many buffer fills is held in blocks that grow with it up to
// 1 MB, then joined once into a slice of its exact size. Growing one slice
// by append instead allocates about five times the line in ever larger
// slices, which the runtime cannot reuse for one another: a 32 MB frame
// cost 150 MB of allocations and its peak RSS with them.
//
// spillCollect is the size at which a line is known to be large: the
// runtime collects then, once per such line, so that what the last large
// frame left (its copies on the way to the session, a retry's params) is
// reused for this one's blocks instead of adding to the peak. The heap
// goal set while a large request was sent would otherwise let the heap
// grow to twice that before the next collection.
const (
	spillBlockMin = 64 << 10
	spillBlockMax = 1 << 20
	spillCollect  = 4 << 20
)

// spill holds the start of a long line across buffer fills.
type spill struct {
	blocks [][]byte
	size   int
}

// write appends a copy of b.
func (s *spill) write(b []byte) {
	for len(b) > 0 {
		n := len(s.blocks)
		if n == 0 || len(s.blocks[n-1]) == cap(s.blocks[n-1]) {
			s.blocks = append(s.blocks, make([]byte, 0, min(max(s.size, spillBlockMin), spillBlockMax)))
			n++
		}
		blk := s.blocks[n-1]
		k := min(len(b), cap(blk)-len(blk))
		s.blocks[n-1] = append(blk, b[:k]...)
		if s.size < spillCollect && s.size+k >= spillCollect {
			runtime.GC()
		}
		s.size += k
		b = b[k:]
	}
}

// appendRange appends the bytes from..to of what was written to dst.
func (s *spill) appendRange(dst []byte, from, to int) []byte {
	at := 0
	for _, blk := range s.blocks {
		lo, hi := max(from-at, 0), min(to-at, len(blk))
		if lo < hi {
			dst = append(dst, blk[lo:hi]...)
		}
		at += len(blk)
		if at >= to {
			break
		}
	}
	return dst
}

// join returns what was written followed by last, in one slice of their
// exact size, and lets go of the blocks.
func (s *spill) join(last []byte) []byte {
	out := make([]byte, 0, s.size+len(last))
	for _, blk := range s.blocks {
		out = append(out, blk...)
	}
	*s = spill{}
	return append(out, last...)
}
