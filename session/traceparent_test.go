package session

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transporttest"
)

// traceParentRE is W3C trace context's traceparent, version 00.
var traceParentRE = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

// TestTraceParentInMetaBothEras: with Config.Trace every request carries
// a fresh, valid traceparent in _meta, the one RequestInfo records, in
// the legacy era and in 2026-07-28; without it, none.
func TestTraceParentInMetaBothEras(t *testing.T) {
	for _, tc := range []struct {
		name   string
		modern bool
		trace  bool
	}{{"legacy", false, true}, {"modern", true, true}, {"off", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := transporttest.Pipe()
			s := New(a, Config{Trace: tc.trace, SettleWindow: -1})
			defer func() { b.Close(); s.Close() }()
			if tc.modern {
				s.UseEra2026(Era2026Options{ClientInfo: Implementation{Name: "t", Version: "1"}})
			}
			seen := map[string]bool{}
			for i, params := range []any{nil, json.RawMessage(`{"name":"x"}`), json.RawMessage(`{"_meta":{"k":1},"name":"y"}`)} {
				c, err := s.Call(context.Background(), "tools/call", params, CallOptions{})
				if err != nil {
					t.Fatal(err)
				}
				got := make(chan []byte, 1)
				go func() { m, _ := b.Recv(); got <- m.Data }()
				var frame []byte
				select {
				case frame = <-got:
				case <-time.After(5 * time.Second):
					t.Fatal("no request frame within 5s")
				}
				var m struct {
					Params struct {
						Meta map[string]json.RawMessage `json:"_meta"`
					} `json:"params"`
				}
				if err := json.Unmarshal(frame, &m); err != nil {
					t.Fatalf("frame %s: %v", frame, err)
				}
				info, _ := s.Request(c.Ref()).Info()
				raw, ok := m.Params.Meta[MetaTraceParent]
				if !tc.trace {
					if ok || !info.TraceParent.IsZero() {
						t.Fatalf("tracing off, but the request carries traceparent %s", raw)
					}
					continue
				}
				var tp string
				if err := json.Unmarshal(raw, &tp); err != nil || !traceParentRE.MatchString(tp) {
					t.Fatalf("request %d: traceparent %s is not valid W3C trace context (frame %s)", i, raw, frame)
				}
				if tp != info.TraceParent.String() {
					t.Fatalf("frame has %s, RequestInfo %s", tp, info.TraceParent)
				}
				if seen[tp] {
					t.Fatalf("traceparent %s sent twice", tp)
				}
				seen[tp] = true
				if i == 2 && string(m.Params.Meta["k"]) != "1" {
					t.Fatalf("the caller's own _meta was lost: %s", frame)
				}
				if tc.modern && m.Params.Meta[MetaProtocolVersion] == nil {
					t.Fatalf("modern _meta lost: %s", frame)
				}
			}
		})
	}
}

// TestParseTraceParent: what a peer sends is checked as W3C trace
// context says; a fresh value round-trips.
func TestParseTraceParent(t *testing.T) {
	fresh := NewTraceParent()
	if got, sampled, ok := ParseTraceParent(fresh.String()); !ok || !sampled || got != fresh {
		t.Fatalf("round trip of %s: %v %v %v", fresh, got, sampled, ok)
	}
	for _, bad := range []string{
		"",
		"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",          // no flags
		"00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",       // upper case
		"00-00000000000000000000000000000000-b7ad6b7169203331-01",       // zero trace id
		"00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",       // zero span id
		"ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",       // version ff
		"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-xx",    // 00 with more
		"00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333g-01",       // not hex
		"00_0af7651916cd43dd8448eb211c80319c_b7ad6b7169203331_01",       // separators
		"\x1b[31m-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", // escape
	} {
		if _, _, ok := ParseTraceParent(bad); ok {
			t.Errorf("ParseTraceParent(%q) accepted it", bad)
		}
	}
	if _, _, ok := ParseTraceParent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-future"); !ok {
		t.Error("a later version with more fields must be read (W3C: parse the first four)")
	}
}

// BenchmarkRoundTripTraced is BenchmarkRoundTrip with a traceparent in
// every request: the cost of --trace without an exporter.
func BenchmarkRoundTripTraced(b *testing.B) {
	a, c := transporttest.Pipe()
	srv := New(c, Config{MaxFinished: serverKept, Handlers: map[string]Handler{
		"echo": func(_ context.Context, in *Incoming) (any, error) { return in.Params, nil },
	}})
	cli := New(a, Config{NoProgressTokens: true, SettleWindow: -1, Trace: true})
	b.Cleanup(func() { cli.Close(); srv.Close() })
	params := json.RawMessage(`{"text":"hi"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cli.Do(ctx, "echo", params, CallOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
