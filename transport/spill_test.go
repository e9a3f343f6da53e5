package transport

import (
	"bytes"
	"io"
	"math/rand"
	"runtime"
	"strings"
	"testing"
)

// A spill gives back exactly what was written, whole or by range, across
// blocks of every size it uses.
func TestSpillRanges(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := range 20 {
		var s spill
		var want []byte
		for range rng.Intn(40) + 1 {
			b := make([]byte, rng.Intn(300<<10))
			rng.Read(b)
			s.write(b)
			want = append(want, b...)
		}
		for range 10 {
			from := rng.Intn(len(want) + 1)
			to := from + rng.Intn(len(want)-from+1)
			if got := s.appendRange([]byte("x"), from, to); !bytes.Equal(got, append([]byte("x"), want[from:to]...)) {
				t.Fatalf("trial %d: range %d..%d of %d differs", trial, from, to, len(want))
			}
		}
		last := []byte("tail")
		got := s.join(last)
		if !bytes.Equal(got, append(want, last...)) || cap(got) != len(got) {
			t.Fatalf("trial %d: join differs (len %d cap %d, want len %d)", trial, len(got), cap(got), len(want)+len(last))
		}
		if s.size != 0 || s.blocks != nil {
			t.Fatalf("trial %d: join kept its blocks", trial)
		}
	}
}

// A long frame that spans many buffer fills costs about twice its size in
// allocations (its blocks, then the frame), not the five times of a slice
// grown by append, whose ever larger copies drove peak RSS.
func TestFrameReaderLongLineAllocations(t *testing.T) {
	const size = 16 << 20
	line := `{"jsonrpc":"2.0","id":1,"result":{"s":"` + strings.Repeat("d", size) + `"}}` + "\n"
	fr := newFrameReader(chunkReader{strings.NewReader(line), 64 << 10}, DefaultMaxFrameSize)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := fr.next()
	runtime.ReadMemStats(&after)
	if err != nil || len(m.Data) != len(line)-1 || cap(m.Data) != len(m.Data) {
		t.Fatalf("got %d bytes (cap %d), %v; want the %d-byte frame", len(m.Data), cap(m.Data), err, len(line)-1)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 5*size/2 {
		t.Errorf("reading a %d MB frame allocated %.1f MB; want at most 2.5 times the frame", size>>20, float64(alloc)/(1<<20))
	}
	if _, err := fr.next(); err != io.EOF {
		t.Fatalf("after the frame: %v, want EOF", err)
	}
}
