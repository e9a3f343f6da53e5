package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// messagesByEncodingJSON is how the proxy read frames before it had a
// reader of its own: encoding/json into message, then its params. The
// hand reader must agree with it on every valid frame.
func messagesByEncodingJSON(frame []byte) []message {
	frame = bytes.TrimLeft(frame, " \t\r")
	var ms []message
	if len(frame) > 0 && frame[0] == '[' {
		json.Unmarshal(frame, &ms)
	} else {
		var m message
		var typeErr *json.UnmarshalTypeError
		if err := json.Unmarshal(frame, &m); err != nil && !errors.As(err, &typeErr) {
			return nil
		}
		ms = []message{m}
	}
	for i := range ms {
		if m := &ms[i]; m.Method != "" && len(m.Params) > 0 {
			json.Unmarshal(m.Params, &m.p)
		}
	}
	return ms
}

// sameMessages says how two readings of a frame differ, or "".
func sameMessages(got, want []message) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d messages, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		impl := func(p *cardImpl) string {
			if p == nil {
				return "nil"
			}
			return fmt.Sprintf("%q/%q", p.Name, p.Version)
		}
		pairs := [][2]string{
			{string(g.ID), string(w.ID)}, {g.Method, w.Method}, {string(g.Params), string(w.Params)}, {string(g.Error), string(w.Error)},
			{string(g.p.RequestID), string(w.p.RequestID)}, {g.p.Reason, w.p.Reason}, {string(g.p.ProgressToken), string(w.p.ProgressToken)},
			{g.p.ProtocolVersion, w.p.ProtocolVersion}, {impl(g.p.ClientInfo), impl(w.p.ClientInfo)}, {g.p.Name, w.p.Name},
			{string(g.p.Arguments), string(w.p.Arguments)}, {string(g.p.Meta.ProgressToken), string(w.p.Meta.ProgressToken)},
			{g.p.Meta.Version, w.p.Meta.Version}, {impl(g.p.Meta.ClientInfo), impl(w.p.Meta.ClientInfo)},
		}
		for f, p := range pairs {
			if p[0] != p[1] {
				return fmt.Sprintf("message %d, field %d: %q, want %q", i, f, p[0], p[1])
			}
		}
	}
	return ""
}

var parseSeeds = []string{
	`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"_meta":{"progressToken":8,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpoke","version":"dev"}},"name":"echo","arguments":{"text":"hello"}}}`,
	`{"jsonrpc":"2.0","id":8,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpoke-demo","title":"mcpoke demo server","version":"dev"}},"content":[{"type":"text","text":"hello"}],"resultType":"complete"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1.0"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a b","reason":"user pressed \"Stop\" \u00e9"}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":{"x":[1,2]},"progress":1}}`,
	` [{"id":1,"method":"a"}, 5, null, [1], {"id":"x","error":{"code":1}} ]`,
	`[]`, `[ ]`, `{}`, `null`, `"x"`, `12`, "\t{\"id\" : 1 , \"method\" : \"m\" }  ",
	`{"ID":1,"Method":"tools/call","PARAMS":{"NAME":"x"}}`,
	`{"\u0069d":1,"method":"m","params":{"re\u0061son":"r"}}`,
	`{"id":1,"method":"m","params":{"reaſon":"r","progreſsToKen":3}}`,
	`{"id":1,"id":2,"method":"a","method":null,"method":5,"params":{"clientInfo":{"name":"a","version":"1"},"clientInfo":{"name":"b"}}}`,
	`{"id":null,"method":"m","params":{"clientInfo":"x","_meta":5,"name":7,"reason":null}}`,
	`{"id":1,"method":"m","params":{"clientInfo":{"name":"a"},"clientInfo":null,"_meta":{"progressToken":1},"_meta":{"io.modelcontextprotocol/clientInfo":[1]}}}`,
	`{"id":1,"method":"m\u0000x","params":[1,2]}`,
	"{\"id\":1,\"method\":\"m\xffx\",\"params\":{\"name\":\"\xc3\xa9\"}}",
	`{"id":1,"method":"","params":{"name":"x"}}`,
	`{"id":1,"method":"m","params":null}`,
	`{"id":1,"method":"m","params":{"_meta":null,"arguments":{"a":"}{]["}}}`,
	`{"a":{"method":"no"},"method":"yes","b":["id"]}`,
}

func TestParseAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range parseSeeds {
		if !json.Valid([]byte(s)) {
			t.Fatalf("seed is not valid JSON: %s", s)
		}
		if why := sameMessages(validMessages([]byte(s), nil), messagesByEncodingJSON([]byte(s))); why != "" {
			t.Errorf("%s: %s", s, why)
		}
	}
	if ms := messages([]byte(`{"id":1,"method":"m"`)); ms != nil {
		t.Errorf("messages of a cut frame: %v, want none", ms)
	}
}

func FuzzParseAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		if !json.Valid(frame) {
			if messages(frame) != nil {
				t.Fatalf("messages of invalid JSON %q: want none", frame)
			}
			return
		}
		if why := sameMessages(validMessages(frame, nil), messagesByEncodingJSON(frame)); why != "" {
			t.Fatalf("%q: %s", frame, why)
		}
	})
}

// BenchmarkParse reads the two frames of a bench round trip.
func BenchmarkParse(b *testing.B) {
	req, answer := []byte(parseSeeds[0]), []byte(parseSeeds[1])
	b.ReportAllocs()
	for b.Loop() {
		validMessages(req, nil)
		validMessages(answer, nil)
	}
}

// BenchmarkParseByEncodingJSON is BenchmarkParse the way it was read
// before, for comparison.
func BenchmarkParseByEncodingJSON(b *testing.B) {
	req, answer := []byte(parseSeeds[0]), []byte(parseSeeds[1])
	b.ReportAllocs()
	for b.Loop() {
		messagesByEncodingJSON(req)
		messagesByEncodingJSON(answer)
	}
}
