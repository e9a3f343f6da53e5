package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// readAll drains a frameReader.
func readAll(t testing.TB, fr *frameReader) []Message {
	t.Helper()
	var out []Message
	for {
		m, err := fr.next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		out = append(out, m)
	}
}

// referenceFrames is the obviously correct, buffer-everything version of
// the framing rules that frameReader implements in a streaming way.
func referenceFrames(data []byte, limit int) []Message {
	var out []Message
	lines := bytes.Split(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		l = bytes.TrimSuffix(l, []byte("\r"))
		over, blank := len(l) > limit, len(bytes.Trim(l, " \t\r\v\f")) == 0
		cut := min(oversizePreview, limit)
		var head, tail []byte
		if over {
			head, tail = l[:cut], l[max(cut, len(l)-oversizeTail):]
		}
		if !over && blank {
			continue
		}
		// An oversize line's mark is seen only in the start it keeps.
		if bytes.HasPrefix(l, bom) && (!over || len(head) >= len(bom)) {
			out = append(out, Message{Kind: wire.KindNoise, Data: bom, Why: BOMStripped})
			l = l[len(bom):]
			if over {
				head = head[len(bom):]
			}
		}
		switch {
		case over:
			out = append(out, Message{Kind: wire.KindOversize, Data: head, Size: len(l), Tail: tail,
				Why: fmt.Sprintf("a frame of %s, over the size limit of %s", wire.FormatSize(len(l)), wire.FormatSize(limit))})
		case len(bytes.Trim(l, " \t\r\v\f")) == 0:
		default:
			kind, why := classify(l)
			out = append(out, Message{Kind: kind, Data: l, Why: why})
		}
	}
	return out
}

func describe(ms []Message) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "%s(%d)%q", m.Kind, m.Size, m.Data)
		if m.Tail != nil || m.Why != "" {
			fmt.Fprintf(&b, "[tail %q, %s]", m.Tail, m.Why)
		}
		b.WriteString(" ")
	}
	return b.String()
}

// sameLines compares kinds, sizes and data, not tails or reasons.
func sameLines(a, b []Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || a[i].Size != b[i].Size || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

func sameMessages(a, b []Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Kind != b[i].Kind || a[i].Size != b[i].Size || !bytes.Equal(a[i].Data, b[i].Data) ||
			!bytes.Equal(a[i].Tail, b[i].Tail) || a[i].Why != b[i].Why {
			return false
		}
	}
	return true
}

func TestFrameReader(t *testing.T) {
	long := strings.Repeat("x", 100)
	longJSON := `{"k":"` + strings.Repeat("y", 90) + `"}`
	maxJSON := `{"k":"` + strings.Repeat("m", 503) + `"}` // 511 bytes
	tests := []struct {
		name string
		in   string
		max  int
		want []Message
	}{
		{"frames", "{\"a\":1}\n[1,2]\n", 64, []Message{
			{Kind: wire.KindFrame, Data: []byte(`{"a":1}`)},
			{Kind: wire.KindFrame, Data: []byte(`[1,2]`)},
		}},
		{"crlf", "{\"a\":1}\r\nhello\r\n", 64, []Message{
			{Kind: wire.KindFrame, Data: []byte(`{"a":1}`)},
			{Kind: wire.KindNoise, Data: []byte(`hello`)},
		}},
		{"blank lines skipped", "\n\r\n  \t \n{}\n\n", 64, []Message{
			{Kind: wire.KindFrame, Data: []byte(`{}`)},
		}},
		{"noise", "Starting server...\n42\n\"str\"\n{not json\n[1,\n", 64, []Message{
			{Kind: wire.KindNoise, Data: []byte(`Starting server...`)},
			{Kind: wire.KindNoise, Data: []byte(`42`)},
			{Kind: wire.KindNoise, Data: []byte(`"str"`)},
			{Kind: wire.KindMalformed, Data: []byte(`{not json`)},
			{Kind: wire.KindMalformed, Data: []byte(`[1,`)},
		}},
		{"leading space frame", "  {\"a\":1}\n", 64, []Message{
			{Kind: wire.KindFrame, Data: []byte(`  {"a":1}`)},
		}},
		{"no final newline", "{\"a\":1}", 64, []Message{
			{Kind: wire.KindFrame, Data: []byte(`{"a":1}`)},
		}},
		{"oversize skipped", long + "\n{\"after\":1}\n", 64, []Message{
			{Kind: wire.KindOversize, Data: []byte(long[:64]), Size: 100},
			{Kind: wire.KindFrame, Data: []byte(`{"after":1}`)},
		}},
		{"oversize json", longJSON + "\r\n{}\n", 32, []Message{
			{Kind: wire.KindOversize, Data: []byte(longJSON[:32]), Size: len(longJSON)},
			{Kind: wire.KindFrame, Data: []byte(`{}`)},
		}},
		{"exactly max with cr", long + "\r\n", 100, []Message{
			{Kind: wire.KindNoise, Data: []byte(long)},
		}},
		// The frame and its "\r" fill the 16- and 64-byte buffers exactly,
		// and it is longer than the oversize preview: the "\r" still does
		// not count, and the frame is whole.
		{"exactly max with cr at a fill", maxJSON + "\r\n", len(maxJSON), []Message{
			{Kind: wire.KindFrame, Data: []byte(maxJSON)},
		}},
		{"max plus one", long + "x\r\n", 100, []Message{
			{Kind: wire.KindOversize, Data: []byte(long), Size: 101},
		}},
		{"preview capped", strings.Repeat("z", 3000) + "\n", 2000, []Message{
			{Kind: wire.KindOversize, Data: []byte(strings.Repeat("z", oversizePreview)), Size: 3000},
		}},
	}
	for _, tt := range tests {
		// Small buffers reach the paths where a line spans buffer fills.
		for _, buf := range []int{16, 17, 64, 4096} {
			t.Run(fmt.Sprintf("%s/buf%d", tt.name, buf), func(t *testing.T) {
				got := readAll(t, newFrameReaderSize(iotest.HalfReader(strings.NewReader(tt.in)), tt.max, buf))
				if !sameLines(got, tt.want) {
					t.Errorf("got  %s\nwant %s", describe(got), describe(tt.want))
				}
				if ref := referenceFrames([]byte(tt.in), tt.max); !sameMessages(ref, got) {
					t.Errorf("reference disagrees: %s", describe(ref))
				}
			})
		}
	}
}

// A frame must not alias the reader's buffer: the receiver owns it.
func TestFrameReaderDataOwned(t *testing.T) {
	fr := newFrameReaderSize(strings.NewReader("{\"a\":1}\n{\"b\":2}\n"), 64, 16)
	m1, _ := fr.next()
	m2, _ := fr.next()
	if string(m1.Data) != `{"a":1}` || string(m2.Data) != `{"b":2}` {
		t.Fatalf("got %q %q", m1.Data, m2.Data)
	}
}

// An oversize line is skipped without holding all of it.
func TestFrameReaderOversizeBounded(t *testing.T) {
	const max = 1 << 10
	// 64 MiB of one line, generated on the fly.
	huge := io.MultiReader(io.LimitReader(repeatReader('x'), 64<<20), strings.NewReader("\n{}\n"))
	fr := newFrameReaderSize(huge, max, 4096)
	m, err := fr.next()
	if err != nil || m.Kind != wire.KindOversize || m.Size != 64<<20 || len(m.Data) != oversizePreview || cap(m.Data) > 2*max {
		t.Fatalf("got %v %d len %d cap %d, %v", m.Kind, m.Size, len(m.Data), cap(m.Data), err)
	}
	if m, err := fr.next(); err != nil || string(m.Data) != "{}" {
		t.Fatalf("next frame: %q %v", m.Data, err)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestFrameReaderError(t *testing.T) {
	boom := errors.New("boom")
	fr := newFrameReader(io.MultiReader(strings.NewReader("{}\n"), iotest.ErrReader(boom)), 64)
	if m, err := fr.next(); err != nil || string(m.Data) != "{}" {
		t.Fatalf("first: %q %v", m.Data, err)
	}
	if _, err := fr.next(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
}

// chunkReader returns at most n bytes per Read, to vary how lines meet
// buffer fills.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), c.n)])
}

func FuzzReadFrames(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1}\r\nnoise\n\n{bad\n"), uint16(64), uint16(0), uint8(3))
	f.Add([]byte(strings.Repeat("a", 300)+"\n[]\n"), uint16(40), uint16(5), uint8(255))
	// A blank line over the limit is oversize, as any other line.
	f.Add([]byte("  \n"), uint16(0), uint16(0), uint8(2))
	f.Add([]byte("\xef\xbb\xbf{\"id\":1}\n\xef\xbb\xbf"+strings.Repeat(" ", 70)+"\n{} x\n{\n"), uint16(63), uint16(0), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, max, buf uint16, chunk uint8) {
		maxSize := int(max%2048) + 1
		bufSize := int(buf%512) + 16
		r := chunkReader{bytes.NewReader(data), int(chunk) + 1}
		got := readAll(t, newFrameReaderSize(r, maxSize, bufSize))
		for _, m := range got {
			if m.Kind == wire.KindFrame && !json.Valid(m.Data) {
				t.Fatalf("invalid frame %q", m.Data)
			}
			if len(m.Data) > maxSize {
				t.Fatalf("%s of %d bytes over max %d", m.Kind, len(m.Data), maxSize)
			}
		}
		// Every input byte is accounted for: each line is delivered,
		// reported oversize or skipped as blank, exactly as the
		// buffer-everything reference does.
		if want := referenceFrames(data, maxSize); !sameMessages(got, want) {
			t.Fatalf("max %d buf %d chunk %d\ngot  %s\nwant %s", maxSize, bufSize, chunk, describe(got), describe(want))
		}
	})
}

func BenchmarkFrameReader(b *testing.B) {
	frame := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", 1024-45) + `"}}`
	if len(frame) != 1024 || !json.Valid([]byte(frame)) {
		b.Fatalf("frame is %d bytes", len(frame))
	}
	data := []byte(strings.Repeat(frame+"\n", 1024))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		fr := newFrameReader(bytes.NewReader(data), 0)
		for {
			m, err := fr.next()
			if err != nil {
				break
			}
			if m.Kind != wire.KindFrame {
				b.Fatal(m.Kind)
			}
		}
	}
}
