package session

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// A line the transport could not use that names a pending request fails
// that request at once, saying what the server sent wrong, instead of
// leaving it to wait for ever; the line is recorded as noise too.
func TestUnusableResponseFailsItsRequest(t *testing.T) {
	big := strings.Repeat("a", 2000)
	tests := []struct {
		name string
		msgs []transport.Message
		want string
	}{
		{"oversize, id in front", []transport.Message{{Kind: wire.KindOversize,
			Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{"x":"` + big[:900]), Size: 40 << 20,
			Why: "a frame of 40 MiB, over the size limit of 32 MiB"}}, "over the size limit of 32 MiB"},
		{"oversize, id at the end", []transport.Message{{Kind: wire.KindOversize,
			Data: []byte(`{"result":{"x":"` + big[:900]), Tail: []byte(big[:200] + `"},"jsonrpc":"2.0","id":1}`), Size: 40 << 20,
			Why: "a frame of 40 MiB, over the size limit of 32 MiB"}}, "over the size limit"},
		{"invalid UTF-8", []transport.Message{{Kind: wire.KindMalformed,
			Data: []byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"\xff\"}}"), Why: "invalid UTF-8 at byte 39"}}, "invalid UTF-8"},
		{"trailing bytes", []transport.Message{{Kind: wire.KindMalformed,
			Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{}} garbage`), Why: `7 bytes after the JSON value ("garbage")`}}, "bytes after the JSON value"},
		{"too deep", []transport.Message{{Kind: wire.KindMalformed,
			Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}}`),
			Why:  "JSON nested 20002 deep, over the limit of 10000"}}, "nested 20002 deep"},
		{"pretty-printed", []transport.Message{
			{Kind: wire.KindMalformed, Data: []byte("{"), Why: "JSON cut short"},
			{Kind: wire.KindNoise, Data: []byte(`  "jsonrpc": "2.0",`)},
			{Kind: wire.KindNoise, Data: []byte(`  "result": {`)},
			{Kind: wire.KindNoise, Data: []byte(`    "id": 7`)},
			{Kind: wire.KindNoise, Data: []byte(`  },`)},
			{Kind: wire.KindNoise, Data: []byte(`  "id": 1`)},
		}, "pretty-printed over several lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			c, err := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, CallOptions{})
			if err != nil {
				t.Fatal(err)
			}
			h.readFrame()
			for _, m := range tt.msgs {
				if err := h.client.(*transporttest.End).InjectMessage(m); err != nil {
					t.Fatal(err)
				}
			}
			_, st, err := waitResult(t, c)
			if st != Failed || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v %v, want failed with %q", st, err, tt.want)
			}
			n := h.events.waitFor(t, "the noise record", func(e Event) bool {
				n, ok := e.(NoiseArrived)
				return ok && strings.Contains(n.Why, "request 1 failed")
			}).(NoiseArrived)
			if len(n.Line) > MaxKept {
				t.Errorf("noise keeps %d bytes", len(n.Line))
			}
		})
	}
}

// The id's JSON type is kept: "1" is not request 1, which still waits.
func TestUnusableResponseKeepsIDType(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, CallOptions{})
	h.readFrame()
	h.client.(*transporttest.End).InjectMessage(transport.Message{Kind: wire.KindMalformed,
		Data: []byte(`{"jsonrpc":"2.0","id":"1","result":{}} x`), Why: "trailing"})
	h.events.waitFor(t, "the noise record", func(e Event) bool { _, ok := e.(NoiseArrived); return ok })
	if info, _ := h.s.Request(c.Ref()).Info(); info.State != Pending {
		t.Fatalf("request 1 is %v after a frame for \"1\"", info.State)
	}
}

// A byte-order mark note is noise of its own cause, and fails nothing.
func TestBOMNoteIsNoise(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.client.(*transporttest.End).InjectMessage(transport.Message{Kind: wire.KindNoise, Data: []byte("\xef\xbb\xbf"), Why: transport.BOMStripped})
	n := h.events.waitFor(t, "the BOM note", func(e Event) bool { _, ok := e.(NoiseArrived); return ok }).(NoiseArrived)
	if n.Cause != NoiseBOM || n.Why != transport.BOMStripped {
		t.Fatalf("got %+v", n)
	}
}

func TestIDIn(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`{"jsonrpc":"2.0","id":3,"result":{"x":"aaa`, "3"},
		{`{"jsonrpc":"2.0","id":"3","result"`, `"3"`},
		{`{"result":{"id":5},"id":-2}`, "-2"},
		{`{"result":{"id":5,"x":"aaaa`, ""},
		{`{"params":[{"id":1}],"id":9}`, "9"},
		{`{"id":{"a":1}}`, ""},
		{`[{"id":1}]`, ""},
		{`{"id"`, ""},
	}
	for _, tt := range tests {
		id, ok := idIn([]byte(tt.in))
		if got := id.String(); got != tt.want || ok != (tt.want != "") {
			t.Errorf("idIn(%s) = %q %v, want %q", tt.in, got, ok, tt.want)
		}
	}
}

func FuzzIDIn(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":3,"result":{"x":"aaa`))
	f.Add([]byte(`aaa"},"jsonrpc":"2.0","id":"x\"y"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, find := range []func([]byte) (ID, bool){idIn, idInTail} {
			if id, ok := find(b); ok {
				if _, err := ParseID([]byte(id.String())); err != nil {
					t.Fatalf("found id %q that is not an id: %v", id, err)
				}
			}
		}
		var w prettyWatch
		for _, l := range strings.Split(string(b), "\n") {
			if id, ok := w.line([]byte(l)); ok && id.IsZero() {
				t.Fatal("zero id found")
			}
		}
	})
}
