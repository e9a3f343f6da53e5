package transport

import (
	"io"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// Each line a hostile server was seen to send is classified with the
// reason the session quotes when it fails the request.
func TestClassifyUnusableLines(t *testing.T) {
	deep := `{"id":3,"result":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	tests := []struct {
		line string
		kind wire.Kind
		why  string
	}{
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, wire.KindFrame, ""},
		{"{\"id\":3,\"result\":{\"t\":\"bad \xff\xfe\"}}", wire.KindMalformed, "invalid UTF-8 at byte 27"},
		{`{"id":3,"result":{}} garbage`, wire.KindMalformed, `7 bytes after the JSON value ("garbage")`},
		{deep, wire.KindMalformed, "JSON nested 20001 deep, over the limit of 10000"},
		{`{`, wire.KindMalformed, "JSON cut short at the end of the line"},
		{`{not json`, wire.KindMalformed, "not valid JSON: invalid character 'n'"},
		{`Listening on stdio`, wire.KindNoise, ""},
	}
	for _, tt := range tests {
		kind, why := classify([]byte(tt.line))
		if kind != tt.kind || !strings.HasPrefix(why, tt.why) {
			t.Errorf("classify(%.40q) = %s %q, want %s %q…", tt.line, kind, why, tt.kind, tt.why)
		}
	}
}

// A byte-order mark before a frame is stripped and noted: the frame
// behind it is delivered. A line that is only a BOM is the note alone.
func TestFrameReaderBOM(t *testing.T) {
	in := "\xef\xbb\xbf{\"id\":1,\"result\":{}}\n\xef\xbb\xbf\n{}\n"
	got := readAll(t, newFrameReaderSize(strings.NewReader(in), 1024, 16))
	want := []Message{
		{Kind: wire.KindNoise, Data: bom, Why: BOMStripped},
		{Kind: wire.KindFrame, Data: []byte(`{"id":1,"result":{}}`)},
		{Kind: wire.KindNoise, Data: bom, Why: BOMStripped},
		{Kind: wire.KindFrame, Data: []byte(`{}`)},
	}
	if !sameMessages(got, want) {
		t.Fatalf("got  %s\nwant %s", describe(got), describe(want))
	}
}

// An oversize frame keeps its first bytes and its last ones, where an id
// written after a huge result is found, and no more.
func TestFrameReaderOversizeTail(t *testing.T) {
	const limit = 1 << 10
	head := `{"result":{"x":"`
	end := `"},"jsonrpc":"2.0","id":3}`
	huge := io.MultiReader(strings.NewReader(head), io.LimitReader(repeatReader('a'), 8<<20), strings.NewReader(end+"\r\n{}\n"))
	fr := newFrameReaderSize(huge, limit, 4096)
	m, err := fr.next()
	if err != nil || m.Kind != wire.KindOversize || len(m.Tail) != oversizeTail || !strings.HasSuffix(string(m.Tail), end) {
		t.Fatalf("got %v %v tail %q", m.Kind, err, m.Tail)
	}
	if cap(m.Tail) > 2*oversizeTail || m.Size != len(head)+8<<20+len(end) {
		t.Fatalf("tail cap %d, size %d", cap(m.Tail), m.Size)
	}
	if !strings.Contains(m.Why, "over the size limit of 1 KiB") {
		t.Fatalf("why %q", m.Why)
	}
}
