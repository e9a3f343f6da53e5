package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpoke/mcpoke/session"
)

// StateSize counts a JSON string's decoded bytes without decoding it.
func TestStateSizeCountsDecodedBytes(t *testing.T) {
	for _, s := range []string{"", "abc", "é\u2028\U0001F600\n\"\\", strings.Repeat("x", 1000)} {
		raw, _ := json.Marshal(s)
		if got := StateSize(raw); got != len(s) {
			t.Errorf("StateSize(%s) = %d, want %d", raw, got, len(s))
		}
	}
	if got := StateSize(json.RawMessage(`"\ud83d\ude00"`)); got != 4 {
		t.Errorf("a surrogate pair counts %d bytes, want 4", got)
	}
	if got := StateSize(json.RawMessage(`7`)); got != -1 {
		t.Errorf("StateSize(7) = %d, want -1", got)
	}
}

// A long requestState is replaced in a body by a quote of its head and
// tail with its size; the rest of the body is as sent; a short one is kept.
func TestElideStateQuotesHeadAndTail(t *testing.T) {
	state := "HEAD" + strings.Repeat("m", 1<<20) + "TAIL"
	body, _ := json.Marshal(map[string]any{"resultType": "input_required", "requestState": state, "inputRequests": map[string]any{"k": 1}})
	got := ElideState(body)
	if len(got) > 512 {
		t.Fatalf("elided body is %d bytes", len(got))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatalf("not JSON: %v: %s", err, got)
	}
	var quote string
	_ = json.Unmarshal(m["requestState"], &quote)
	if !strings.HasPrefix(quote, "HEAD") || !strings.HasSuffix(quote, "TAIL") || !strings.Contains(quote, "[1048584 bytes in all]") {
		t.Errorf("quote %q: want head, tail and the full size", quote)
	}
	if string(m["inputRequests"]) != `{"k":1}` || string(m["resultType"]) != `"input_required"` {
		t.Errorf("the rest of the body changed: %s", got)
	}
	// A key with escapes before it (a hostile server's) does not hide it.
	escaped := json.RawMessage(`{"k\u001b":1,"request\u0053tate":"` + strings.Repeat("z", 500) + `"}`)
	if got := ElideState(escaped); len(got) > 300 || !strings.Contains(string(got), "[500 bytes in all]") || !strings.HasPrefix(string(got), `{"k\u001b":1,`) {
		t.Errorf("escaped keys: %s", got)
	}
	short := json.RawMessage(`{"requestState":"abc"}`)
	if string(ElideState(short)) != string(short) {
		t.Errorf("a short state was changed: %s", ElideState(short))
	}
}

// Once a round's retry is sent, neither the session's table nor the
// round's call keeps that round's requestState, nor the sent one: only
// the last round keeps its own (a server doubling a 1 MB state would
// otherwise leave every round's state held until the call ends).
func TestRoundsLetGoOfEarlierStates(t *testing.T) {
	const size = 1 << 20
	cs, client, srv := newMRTRPair(t, ClientFeatures{}, nil, func(int, json.RawMessage) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"resultType": "input_required", "requestState": strings.Repeat("s", size)})
		return b
	})
	first, err := client.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"t"}`), session.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rounds, err := cs.FollowRounds(context.Background(), client, first, session.CallOptions{}, nil)
	if !errors.Is(err, ErrTooManyRounds) {
		t.Fatalf("FollowRounds = %v, want ErrTooManyRounds", err)
	}
	// Each retry went out with the state whole.
	for i, sent := range srv.seen()[1:] {
		if len(sent) < size {
			t.Fatalf("retry %d is %d bytes: the state was not echoed whole", i+2, len(sent))
		}
	}
	kept := 0
	for _, r := range rounds[:len(rounds)-1] {
		info, _ := client.Request(r.Call.Ref()).Info()
		res, _, _ := r.Call.Result()
		kept += len(info.Params) + len(info.Result) + len(res) + len(r.Input.State)
		if r.Input.StateSize != size || !strings.Contains(r.Input.StateQuote, "bytes in all") {
			t.Errorf("round %d: state of %d bytes quoted %q; want its size and a quote", r.N, r.Input.StateSize, r.Input.StateQuote)
		}
	}
	if kept > 8<<10 {
		t.Errorf("the earlier rounds keep %d bytes; want their states let go", kept)
	}
}

// StateSize agrees with decoding on every kind of escape: one byte, two,
// three, a pair, a lone surrogate of either half, the edges of the
// surrogate ranges, and escapes at the very start and end.
func TestStateSizeAgreesWithDecoding(t *testing.T) {
	for _, raw := range []string{
		`""`, `"a"`, `"\n"`, `"\\"`, `"\/"`, `"\u0041"`, `"\u00e9"`, `"\u07ff"`, `"\u0800"`, `"\uffff"`,
		`"\ud83d\ude00"`, `"\ud800\udc00"`, `"\udbff\udfff"`, `"\ud83d"`, `"\ude00"`, `"\ud7ff"`, `"\ue000"`,
		`"\udc00"`, `"\udfff"`, `"x\ud83dy"`, `"\ud83d\n"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`, `"é\u0041é"`,
		`"\ud800"`, `"\udc00\udc00"`, `"\ud83d\ud83d"`, `"\ud83d\u00e9"`, `"\ud83d\ue000"`,
	} {
		var s string
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if got := StateSize(json.RawMessage(raw)); got != len(s) {
			t.Errorf("StateSize(%s) = %d; decoded it is %d bytes", raw, got, len(s))
		}
	}
	for _, raw := range []string{`"`, `x"`, `"x`, `'x'`, `"\"`, `"\u123"`, `"\u"`, `"\uzzzz"`} {
		if got := StateSize(json.RawMessage(raw)); got != -1 {
			t.Errorf("StateSize(%s) = %d; want -1, not a JSON string", raw, got)
		}
	}
}

// A state of up to 2×StateQuoteEdge bytes is quoted whole, and kept as
// it is in a body; one byte more is cut to its head and tail.
func TestQuoteStateEdge(t *testing.T) {
	whole := strings.Repeat("a", 2*StateQuoteEdge)
	raw, _ := json.Marshal(whole)
	if got := QuoteState(raw); got != whole {
		t.Errorf("QuoteState of %d bytes = %q; want it whole", len(whole), got)
	}
	body := json.RawMessage(`{"requestState":` + string(raw) + `}`)
	if got := ElideState(body); string(got) != string(body) {
		t.Errorf("ElideState changed a state of %d bytes: %s", len(whole), got)
	}
	// Kept as sent, escapes and all, up to the same edge: 130 bytes of
	// JSON string, quotes included.
	escaped := json.RawMessage(`{"requestState":"\u0041` + strings.Repeat("a", 2*StateQuoteEdge-6) + `"}`)
	if got := ElideState(escaped); string(got) != string(escaped) {
		t.Errorf("ElideState changed a short state with an escape: %s", got)
	}
	long := "H" + strings.Repeat("m", 2*StateQuoteEdge-1) + "T"
	raw, _ = json.Marshal(long)
	want := long[:StateQuoteEdge] + "…[129 bytes in all]…" + long[len(long)-StateQuoteEdge:]
	if got := QuoteState(raw); got != want {
		t.Errorf("QuoteState of 129 bytes = %q; want %q", got, want)
	}
	if got := ElideState(json.RawMessage(`{"requestState":` + string(raw) + `}`)); !strings.Contains(string(got), "[129 bytes in all]") {
		t.Errorf("ElideState kept a state of 129 bytes: %s", got)
	}
	if QuoteState(nil) != "" {
		t.Error("QuoteState(nil) is not empty")
	}
}

// FuzzStateSize: on any JSON string of valid UTF-8, StateSize counts
// what decoding it gives. (Raw invalid UTF-8 decodes to U+FFFD, which
// StateSize counts as the one byte sent.)
func FuzzStateSize(f *testing.F) {
	for _, s := range []string{`"\ud83d\ude00"`, `"\ud83d\ud83d"`, `"\udc00\u0041"`, `"a\\b"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var s string
		if !utf8.ValidString(raw) || json.Unmarshal([]byte(raw), &s) != nil || !strings.HasPrefix(raw, `"`) || !strings.HasSuffix(raw, `"`) {
			return
		}
		if got := StateSize(json.RawMessage(raw)); got != len(s) {
			t.Fatalf("StateSize(%s) = %d; decoded it is %d bytes", raw, got, len(s))
		}
	})
}
