package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// isViolation matches the violation of kind.
func isViolation(kind ViolationKind) func(Event) bool {
	return func(e Event) bool { v, ok := e.(Violation); return ok && v.Kind == kind }
}

// Each malformed error object fails the request with words that say it
// was malformed and quote the bytes; no code the server did not send.
func TestMalformedErrorObjectIsNotGivenACode(t *testing.T) {
	for name, errMember := range map[string]string{
		"string":     `"oops"`,
		"no code":    `{"message":"m"}`,
		"float code": `{"code":1.5,"message":"m"}`,
		"text code":  `{"code":"-32000","message":"m"}`,
		"no message": `{"code":-32000}`,
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
			h.readFrame()
			h.peerSend(`{"jsonrpc":"2.0","id":1,"error":%s}`, errMember)
			_, state, err := waitResult(t, c)
			var rpcErr *RPCError
			if state != Failed || errors.As(err, &rpcErr) {
				t.Fatalf("state %v, err %v (%T); want failed without an RPCError", state, err, err)
			}
			if !strings.Contains(err.Error(), "malformed error object") || !strings.Contains(err.Error(), errMember) {
				t.Errorf("error %q does not say malformed and quote %s", err, errMember)
			}
			v := h.events.waitFor(t, "a malformed_error violation", isViolation(ViolationMalformedError)).(Violation)
			if v.Ref.Seq != c.Seq() || v.ID != "1" || !strings.Contains(string(v.Frame), errMember) {
				t.Errorf("violation %+v: want request 1's with the frame", v)
			}
			info, _ := h.s.Request(c.Ref()).Info()
			if info.Error != nil {
				t.Errorf("info.Error = %+v; want none (no code was sent)", info.Error)
			}
		})
	}
}

// An integer code written as 1.0 or with data is a well-formed error.
func TestWellFormedErrorObject(t *testing.T) {
	e, why := parseErrorObject([]byte(`{"code":-32000.0,"message":"m","data":{"x":1}}`))
	if why != "" || e.Code != -32000 || e.Message != "m" || string(e.Data) != `{"x":1}` {
		t.Fatalf("parseErrorObject = %+v, %q", e, why)
	}
}

func TestResultAndErrorFailsTheRequest(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`)
	_, state, err := waitResult(t, c)
	if state != Failed || err == nil || !strings.Contains(err.Error(), "both result and error") {
		t.Fatalf("state %v, err %v; want failed: both result and error", state, err)
	}
	v := h.events.waitFor(t, "a result_and_error violation", isViolation(ViolationResultAndError)).(Violation)
	if v.Ref.Seq != c.Seq() {
		t.Errorf("violation names seq %d, want %d", v.Ref.Seq, c.Seq())
	}
}

// A jsonrpc other than "2.0" is flagged; the response is still used.
func TestJSONRPCVersionIsFlagged(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"1.0","id":1,"result":{"ok":true}}`)
	res, state, err := waitResult(t, c)
	if state != Completed || err != nil || string(res) != `{"ok":true}` {
		t.Fatalf("state %v, err %v, result %s; want completed", state, err, res)
	}
	v := h.events.waitFor(t, "a jsonrpc_version violation", isViolation(ViolationJSONRPCVersion)).(Violation)
	if v.Ref.Seq != c.Seq() || !strings.Contains(v.Detail, `"1.0"`) {
		t.Errorf("violation %+v", v)
	}
	h.peerSend(`{"method":"notifications/message","params":{}}`)
	v = h.events.waitFor(t, "a missing jsonrpc flagged", func(e Event) bool {
		v, ok := e.(Violation)
		return ok && v.Kind == ViolationJSONRPCVersion && strings.Contains(v.Detail, "no jsonrpc")
	}).(Violation)
	if v.Ref.Seq != 0 {
		t.Errorf("a notification's violation names request seq %d", v.Ref.Seq)
	}
}

// A request id 1.5 is refused with -32600, echoing the id, and flagged; a
// response with id 1.5 is stray and flagged.
func TestNonIntegerIDs(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.peerSend(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`)
	m := h.readFrame()
	if string(m.ID) != "1.5" || !strings.Contains(string(m.Error), "-32600") {
		t.Fatalf("answer to id 1.5: id %s error %s; want -32600 with id 1.5", m.ID, m.Error)
	}
	h.events.waitFor(t, "the request's non_integer_id", isViolation(ViolationNonIntegerID))
	h.peerSend(`{"jsonrpc":"2.0","id":2.5,"result":{}}`)
	h.events.waitFor(t, "the stray response", func(e Event) bool { _, ok := e.(StrayArrived); return ok })
	v := h.events.waitFor(t, "the response's non_integer_id", func(e Event) bool {
		v, ok := e.(Violation)
		return ok && v.Kind == ViolationNonIntegerID && v.ID == "2.5"
	}).(Violation)
	if v.Ref.Seq != 0 {
		t.Errorf("violation names seq %d", v.Ref.Seq)
	}
	for _, id := range []string{"1", "-3", "1.0", "1e3", `"1.5"`} {
		if fractionalNumber([]byte(id)) {
			t.Errorf("id %s taken for a non-integer", id)
		}
	}
}

// initialized runs the handshake, the server answering version.
func initialized(t *testing.T, h *harness, version string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := h.s.Initialize(context.Background(), InitializeOptions{})
		done <- err
	}()
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`, version)
	h.readFrame() // notifications/initialized
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(hangGuard):
		t.Fatalf("Initialize did not return within %v of its answer", hangGuard)
	}
}

// A batch is flagged under 2025-06-18 and later, not before; its messages
// are handled either way.
func TestBatchFlaggedOnlyWhereForbidden(t *testing.T) {
	for version, flagged := range map[string]bool{"2024-11-05": false, "2025-03-26": false, "2025-06-18": true, "2025-11-25": true} {
		t.Run(version, func(t *testing.T) {
			h := newHarness(t, harnessOpts{})
			initialized(t, h, version)
			c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
			h.readFrame()
			h.peerSend(`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","method":"notifications/message","params":{}}]`)
			if _, state, _ := waitResult(t, c); state != Completed {
				t.Fatalf("state %v; want the batch's response used", state)
			}
			// A ping's answer comes after the batch was handled.
			if _, err := h.s.Call(context.Background(), "ping", nil, CallOptions{}); err != nil {
				t.Fatal(err)
			}
			h.readFrame()
			h.peerSend(`{"jsonrpc":"2.0","id":3,"result":{}}`)
			h.events.waitFor(t, "the ping's answer", func(e Event) bool { sc, ok := e.(StateChanged); return ok && sc.Ref.ID == IntID(3) })
			got := false
			for _, e := range h.events.snapshot() {
				if v, ok := e.(Violation); ok && v.Kind == ViolationBatch {
					got = true
				}
			}
			if got != flagged {
				t.Errorf("batch flagged = %v under %s; want %v", got, version, flagged)
			}
		})
	}
}

// Progress for a request sent without a token is stray, even when the
// token equals the request's id (audit P4).
func TestProgressNeedsTheTokenSent(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/list", nil, CallOptions{NoProgressToken: true})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	h.events.waitFor(t, "stray progress", func(e Event) bool { s, ok := e.(StrayArrived); return ok && s.Kind == LateProgress })
	info, _ := h.s.Request(c.Ref()).Info()
	if info.ProgressCount != 0 {
		t.Fatalf("ProgressCount = %d for a request sent without a token", info.ProgressCount)
	}
}

// Progress that is missing, not a number, or not increasing is flagged on
// the progress itself and as a violation, and never becomes a value of 0.
func TestProgressFlaws(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	for _, p := range []string{`"progress":5`, `"progress":3`, `"progress":3`, ``, `"progress":"x"`, `"progress":null`, `"progress":6`} {
		sep := ","
		if p == "" {
			sep = ""
		}
		h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1%s%s}}`, sep, p)
	}
	h.events.waitFor(t, "the last progress", func(e Event) bool {
		p, ok := e.(ProgressUpdated)
		return ok && p.Progress.Progress == 6
	})
	var flaws []ViolationKind
	for _, e := range h.events.snapshot() {
		if p, ok := e.(ProgressUpdated); ok {
			flaws = append(flaws, p.Progress.Flaw)
		}
	}
	want := []ViolationKind{NoViolation, ViolationProgressNotIncreasing, ViolationProgressNotIncreasing,
		ViolationProgressMissing, ViolationProgressNotNumber, ViolationProgressNotNumber, NoViolation}
	if len(flaws) != len(want) {
		t.Fatalf("flaws %v, want %v", flaws, want)
	}
	for i := range want {
		if flaws[i] != want[i] {
			t.Errorf("progress %d: flaw %v, want %v", i, flaws[i], want[i])
		}
	}
	info, _ := h.s.Request(c.Ref()).Info()
	if info.ProgressCount != 7 || info.Progress.Progress != 6 {
		t.Errorf("count %d latest %v; want 7 and 6", info.ProgressCount, info.Progress.Progress)
	}
	n := 0
	for _, e := range h.events.snapshot() {
		if v, ok := e.(Violation); ok && v.Ref.Seq == c.Seq() {
			n++
		}
	}
	if n != 5 {
		t.Errorf("%d violations for the request; want 5", n)
	}
}

// Progress after the response is stray and flagged for that request.
func TestProgressAfterResponse(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "x", nil, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	waitResult(t, c)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	v := h.events.waitFor(t, "progress_after_response", isViolation(ViolationProgressAfterResponse)).(Violation)
	if v.Ref.Seq != c.Seq() {
		t.Errorf("violation names seq %d", v.Ref.Seq)
	}
	h.events.waitFor(t, "stray progress", func(e Event) bool { s, ok := e.(StrayArrived); return ok && s.Kind == LateProgress })
}

// CheckMessage judges single messages as the session does.
func TestCheckMessage(t *testing.T) {
	for frame, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                                  "",
		`{"jsonrpc":"1.0","id":1,"result":{}}`:                                  "jsonrpc_version",
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`: "result_and_error",
		`{"jsonrpc":"2.0","id":1,"error":"oops"}`:                               "malformed_error",
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`:                            "non_integer_id",
	} {
		var got []string
		for _, k := range CheckMessage([]byte(frame)) {
			got = append(got, k.String())
		}
		if strings.Join(got, ",") != want {
			t.Errorf("CheckMessage(%s) = %v, want %q", frame, got, want)
		}
	}
}
