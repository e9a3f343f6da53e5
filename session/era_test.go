package session

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// HasRequestStreams makes streamConn a Streamable HTTP-like transport.
func (c *streamConn) HasRequestStreams() bool { return true }

// metaOf decodes a frame's params._meta.
func metaOf(t *testing.T, params json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		t.Fatalf("params %s: %v", params, err)
	}
	return p.Meta
}

var testClient = Implementation{Name: "mcpoke-test", Version: "9"}

// A modern session stamps every request with the version, capabilities and
// clientInfo, beside the progress token, and the log level when asked.
func TestModernRequestsCarryMeta(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.s.UseEra2026(Era2026Options{ClientInfo: testClient, Capabilities: json.RawMessage(`{ "roots": {} }`)})
	if !h.s.Era2026() {
		t.Fatal("Modern() is false after UseModern")
	}
	h.s.Call(context.Background(), "tools/call", map[string]any{"name": "sleep", "_meta": map[string]any{"mine": 1}}, CallOptions{LogLevel: "debug"})
	m := h.readFrame()
	meta := metaOf(t, m.Params)
	for key, want := range map[string]string{
		MetaProtocolVersion:    `"2026-07-28"`,
		MetaClientCapabilities: `{"roots":{}}`,
		MetaClientInfo:         `{"name":"mcpoke-test","version":"9"}`,
		MetaLogLevel:           `"debug"`,
		"progressToken":        `1`,
		"mine":                 `1`,
	} {
		if got := string(meta[key]); got != want {
			t.Errorf("_meta[%q] = %s, want %s", key, got, want)
		}
	}
	// Without params and without a token, the meta alone.
	h.s.Call(context.Background(), "tools/list", nil, CallOptions{NoProgressToken: true})
	meta = metaOf(t, h.readFrame().Params)
	if _, ok := meta["progressToken"]; ok || string(meta[MetaProtocolVersion]) != `"2026-07-28"` || meta[MetaLogLevel] != nil {
		t.Errorf("tools/list _meta = %v", meta)
	}
}

// A legacy session sends no modern _meta, and no log level.
func TestLegacyRequestsCarryNoModernMeta(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.s.Call(context.Background(), "tools/list", nil, CallOptions{LogLevel: "debug"})
	meta := metaOf(t, h.readFrame().Params)
	if len(meta) != 1 || meta["progressToken"] == nil {
		t.Errorf("legacy _meta = %v, want the progress token alone", meta)
	}
}

// The methods 2026-07-28 removed are refused, nothing sent.
func TestModernRefusesRemovedMethods(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.s.UseEra2026(Era2026Options{ClientInfo: testClient})
	for _, m := range []string{"ping", "logging/setLevel", "initialize", "resources/subscribe"} {
		_, err := h.s.Call(context.Background(), m, nil, CallOptions{})
		var nie *NotInEraError
		if !errors.Is(err, ErrNotInEra) || !errors.As(err, &nie) || nie.Method != m || !strings.Contains(err.Error(), "2026-07-28") {
			t.Errorf("Call(%s) = %v, want a NotInEraError", m, err)
		}
	}
	for _, m := range []string{"notifications/initialized", "notifications/roots/list_changed"} {
		if err := h.s.Notify(m, nil); !errors.Is(err, ErrNotInEra) {
			t.Errorf("Notify(%s) = %v, want ErrNotInEra", m, err)
		}
	}
	if n := h.wire.written(); n != 0 {
		t.Fatalf("%d frames written", n)
	}
}

// discover runs Discover with answer as the peer's reply to it.
func (h *harness) discover(opts DiscoverOptions, answer string) (PeerInfo, wireMessage, error) {
	h.t.Helper()
	type res struct {
		peer PeerInfo
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		peer, err := h.s.Discover(context.Background(), opts)
		ch <- res{peer, err}
	}()
	req := h.readFrame()
	if req.Method != "server/discover" {
		h.t.Fatalf("first frame %q, want server/discover", req.Method)
	}
	h.peerSend(`{"jsonrpc":"2.0","id":%s,%s}`, req.ID, answer)
	select {
	case r := <-ch:
		return r.peer, req, r.err
	case <-time.After(hangGuard):
		h.t.Fatalf("Discover did not return within %v of its answer", hangGuard)
	}
	return PeerInfo{}, req, nil
}

const discoverAnswer = `"result":{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],
	"capabilities":{"tools":{}},"instructions":"hi","ttlMs":0,"cacheScope":"public",
	"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"2"}}}`

func TestDiscoverMakesTheSessionModern(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	peer, req, err := h.discover(DiscoverOptions{Era2026Options: Era2026Options{ClientInfo: testClient}}, discoverAnswer)
	if err != nil {
		t.Fatal(err)
	}
	if string(metaOf(t, req.Params)[MetaProtocolVersion]) != `"2026-07-28"` {
		t.Errorf("server/discover params %s", req.Params)
	}
	if peer.ProtocolVersion != "2026-07-28" || peer.ServerInfo.Name != "srv" || peer.Instructions != "hi" ||
		!slices.Equal(peer.SupportedVersions, []string{"2026-07-28", "2025-11-25"}) || !peer.Era2026() || peer.Era() != "modern" {
		t.Fatalf("peer %+v", peer)
	}
	if !h.s.Era2026() || h.s.Peer().ServerInfo.Name != "srv" {
		t.Fatalf("session not modern after discover: %+v", h.s.Peer())
	}
}

// UnsupportedProtocolVersion names what the server speaks; the session is
// left legacy for the caller to choose.
func TestDiscoverRefusedNamesTheVersions(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, _, err := h.discover(DiscoverOptions{Era2026Options: Era2026Options{ClientInfo: testClient}},
		`"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-06-18"],"requested":"2026-07-28"}}`)
	var vr *VersionRefusedError
	if !errors.As(err, &vr) || vr.Requested != "2026-07-28" || !slices.Equal(vr.Supported, []string{"2025-06-18"}) {
		t.Fatalf("err %v, want a VersionRefusedError", err)
	}
	if v, ok := PickVersion(vr.Supported); !ok || v != "2025-06-18" {
		t.Fatalf("PickVersion = %q %v", v, ok)
	}
	if h.s.Era2026() {
		t.Fatal("the session stayed modern after a refusal")
	}
	if !strings.Contains(err.Error(), "it supports 2025-06-18") {
		t.Errorf("error text %q", err)
	}
}

// A DiscoverResult that does not list the version asked for is a refusal.
func TestDiscoverResultWithoutOurVersion(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, _, err := h.discover(DiscoverOptions{Era2026Options: Era2026Options{ClientInfo: testClient}},
		`"result":{"resultType":"complete","supportedVersions":["2027-01-01"],"capabilities":{}}`)
	var vr *VersionRefusedError
	if !errors.As(err, &vr) || vr.Err != nil || !slices.Equal(vr.Supported, []string{"2027-01-01"}) {
		t.Fatalf("err %v", err)
	}
	if _, ok := PickVersion(vr.Supported); ok {
		t.Fatal("PickVersion found a version in common with 2027-01-01")
	}
}

// Any other answer leaves the session legacy with the error as it came.
func TestDiscoverOtherErrorLeavesLegacy(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, _, err := h.discover(DiscoverOptions{Era2026Options: Era2026Options{ClientInfo: testClient}},
		`"error":{"code":-32601,"message":"Method not found"}`)
	var rpcErr *RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeMethodNotFound || h.s.Era2026() {
		t.Fatalf("err %v, modern %v", err, h.s.Era2026())
	}
	if _, ok := AsVersionRefused(err, Era2026Version); ok {
		t.Fatal("-32601 read as a version refusal")
	}
}

// A probe with a quiet timeout ends timed out and sends no cancel: the
// server it went to is taken for a legacy one.
func TestQuietProbeTimeoutSendsNoCancel(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	done := make(chan error, 1)
	go func() {
		_, err := h.s.Discover(context.Background(), DiscoverOptions{Era2026Options: Era2026Options{ClientInfo: testClient},
			Timeout: time.Second, QuietTimeout: true})
		done <- err
	}()
	h.readFrame()
	h.clock.Advance(time.Second)
	var err error
	select {
	case err = <-done:
	case <-time.After(hangGuard):
		t.Fatal("Discover did not time out")
	}
	if !errors.Is(err, ErrTimedOut) || h.s.Era2026() {
		t.Fatalf("err %v, modern %v", err, h.s.Era2026())
	}
	// The late answer is late, counted from the timeout.
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	h.events.waitFor(t, "late answer", isLate(1, LateResponse))
	if n := h.wire.written(); n != 1 {
		t.Fatalf("%d frames written, want the probe alone", n)
	}
}

// A result without resultType is "complete"; one with it keeps it in the
// modern era, and not before it, which has no such field.
func TestResultType(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	c, _ := h.s.Call(context.Background(), "tools/call", nil, CallOptions{})
	m := h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":{"resultType":"input_required","requestState":"s"}}`, m.ID)
	waitResult(t, c)
	if info, _ := h.s.Request(c.Ref()).Info(); info.ResultType != ResultComplete {
		t.Errorf("a legacy session read resultType %q", info.ResultType)
	}
	h.s.UseEra2026(Era2026Options{})
	for _, tc := range []struct{ result, want string }{
		{`{}`, "complete"},
		{`{"resultType":"complete"}`, "complete"},
		{`{"resultType":"input_required","inputRequests":{}}`, "input_required"},
		{`{"resultType":7}`, "complete"},
	} {
		c, _ := h.s.Call(context.Background(), "tools/call", nil, CallOptions{})
		m := h.readFrame()
		h.peerSend(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, tc.result)
		waitResult(t, c)
		if info, _ := h.s.Request(c.Ref()).Info(); info.ResultType != tc.want {
			t.Errorf("result %s: ResultType %q, want %q", tc.result, info.ResultType, tc.want)
		}
	}
}

// The modern error codes are explained in words.
func TestModernErrorsExplained(t *testing.T) {
	for _, tc := range []struct {
		e    RPCError
		want []string
	}{
		{RPCError{Code: -32020, Message: "Header mismatch"}, []string{"code -32020", "HeaderMismatch", "Mcp-Name"}},
		{RPCError{Code: -32021, Message: "Missing capability", Data: json.RawMessage(`{"requiredCapabilities":{"sampling":{},"elicitation":{}}}`)},
			[]string{"MissingRequiredClientCapability", "elicitation, sampling"}},
		{RPCError{Code: -32022, Message: "Unsupported", Data: json.RawMessage(`{"supported":["2026-07-28"],"requested":"2025-01-01"}`)},
			[]string{"does not speak 2025-01-01", "it supports 2026-07-28"}},
	} {
		got := tc.e.Error()
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q lacks %q", got, w)
			}
		}
	}
	if got := (&RPCError{Code: -32601, Message: "nope"}).Error(); got != "nope (code -32601)" {
		t.Errorf("plain error %q", got)
	}
}

// In the modern era over a transport with per-request streams, a cancel
// closes the request's stream and sends nothing, whatever --cancel-mode
// says; the request is cancelled at once, as nothing more can arrive.
func TestModernCancelOverStreamsClosesTheStream(t *testing.T) {
	for _, mode := range []CancelMode{CancelNotify, CancelBoth} {
		conn := newStreamConn()
		s := New(conn, Config{NoProgressTokens: true, CancelMode: mode})
		s.UseEra2026(Era2026Options{ClientInfo: testClient})
		events := collect(s.Subscribe())
		c, _ := s.Call(context.Background(), "tools/call", nil, CallOptions{})
		if err := s.Request(c.Ref()).Cancel("enough"); err != nil {
			t.Fatal(err)
		}
		if _, st, _ := waitResult(t, c); st != Cancelled {
			t.Fatalf("%v: state %v, want cancelled at once", mode, st)
		}
		sent, closed := conn.snapshot()
		if strings.Contains(strings.Join(sent, "\n"), "notifications/cancelled") || !slices.Equal(closed, []string{"1"}) {
			t.Fatalf("%v: sent %q, closed %q", mode, sent, closed)
		}
		e := events.waitFor(t, "CancelSent", func(e Event) bool { _, ok := e.(CancelSent); return ok }).(CancelSent)
		if e.Wire != (CancelWire{StreamClosed: true, ByStreamClose: true}) || e.Wire.LateObservable() {
			t.Errorf("%v: CancelSent.Wire %+v", mode, e.Wire)
		}
		if info, _ := s.Request(c.Ref()).Info(); !info.CancelWire.ByStreamClose {
			t.Errorf("%v: info.CancelWire %+v", mode, info.CancelWire)
		}
		s.Close()
	}
}

// A timeout cancels by the same rule.
func TestModernTimeoutClosesTheStream(t *testing.T) {
	conn := newStreamConn()
	s := New(conn, Config{NoProgressTokens: true})
	defer s.Close()
	s.UseEra2026(Era2026Options{ClientInfo: testClient})
	c, _ := s.Call(context.Background(), "tools/call", nil, CallOptions{Timeout: time.Millisecond})
	if _, st, _ := waitResult(t, c); st != TimedOut {
		t.Fatalf("state %v", st)
	}
	waitUntil(t, "the stream closed", func() bool { _, closed := conn.snapshot(); return len(closed) == 1 })
	if sent, _ := conn.snapshot(); len(sent) != 1 {
		t.Fatalf("sent %q: a cancel notification went too", sent)
	}
}

// Without per-request streams (stdio) the modern cancel is the
// notification, even under --cancel-mode close.
func TestModernCancelOnStdioNotifies(t *testing.T) {
	a, b := transporttest.Pipe()
	s := New(a, Config{NoProgressTokens: true, CancelMode: CancelClose, SettleWindow: -1})
	defer s.Close()
	defer b.Close()
	s.UseEra2026(Era2026Options{ClientInfo: testClient})
	c, _ := s.Call(context.Background(), "tools/call", nil, CallOptions{})
	recvFrame(t, b)
	s.Request(c.Ref()).Cancel("stop")
	if m := recvFrame(t, b); m.Method != "notifications/cancelled" || !strings.Contains(string(m.Params), `"requestId":1`) {
		t.Fatalf("wrote %s %s, want the cancel notification", m.Method, m.Params)
	}
}

// A stream that broke before the answer loses its request: it fails,
// saying so and when.
func TestModernBrokenStreamLosesTheRequest(t *testing.T) {
	conn := newStreamConn()
	s := New(conn, Config{NoProgressTokens: true})
	defer s.Close()
	s.UseEra2026(Era2026Options{ClientInfo: testClient})
	c, _ := s.Call(context.Background(), "tools/call", nil, CallOptions{})
	conn.in <- transport.Message{Kind: wire.KindRequestError, ID: []byte(`1`), Why: transport.StreamBroke, Data: []byte("stream ended")}
	_, st, err := waitResult(t, c)
	info, _ := s.Request(c.Ref()).Info()
	if st != Failed || info.LostAt.IsZero() || !strings.HasPrefix(err.Error(), "lost: stream broke at +") {
		t.Fatalf("state %v err %v lost %v", st, err, info.LostAt)
	}
}

// A refusal whose JSON-RPC error named no id fails the request with that
// error, code and all.
func TestRequestErrorCarriesTheServersError(t *testing.T) {
	conn := newStreamConn()
	s := New(conn, Config{NoProgressTokens: true})
	defer s.Close()
	c, _ := s.Call(context.Background(), "server/discover", nil, CallOptions{})
	conn.in <- transport.Message{Kind: wire.KindRequestError, ID: []byte(`1`), Data: []byte("HTTP 400"),
		RPCError: []byte(`{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"]}}`)}
	_, _, err := waitResult(t, c)
	vr, ok := AsVersionRefused(err, "2026-07-28")
	if !ok || !slices.Equal(vr.Supported, []string{"2025-11-25"}) {
		t.Fatalf("err %v: not read as a version refusal", err)
	}
}

// A modern server may send notifications/cancelled only to end our
// subscriptions/listen; for anything else it is flagged and ignored.
func TestModernServerCancel(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.s.UseEra2026(Era2026Options{ClientInfo: testClient})
	call, _ := h.s.Call(context.Background(), "tools/call", nil, CallOptions{})
	h.readFrame()
	listen, _ := h.s.Call(context.Background(), "subscriptions/listen", map[string]any{"notifications": map[string]bool{"toolsListChanged": true}}, CallOptions{})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"no"}}`)
	v := h.events.waitFor(t, "violation", func(e Event) bool { v, ok := e.(Violation); return ok && v.Kind == ViolationServerCancel }).(Violation)
	if v.Ref.Seq != call.Seq() || !strings.Contains(v.Detail, "tools/call") {
		t.Errorf("violation %+v", v)
	}
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"shutting down"}}`)
	if _, st, _ := waitResult(t, listen); st != Completed {
		t.Fatalf("subscription state %v", st)
	}
	info, _ := h.s.Request(listen.Ref()).Info()
	if !strings.Contains(info.EndedByPeer, "shutting down") {
		t.Errorf("EndedByPeer %q", info.EndedByPeer)
	}
	if info, _ := h.s.Request(call.Ref()).Info(); info.State != Pending {
		t.Errorf("the call was touched: %v", info.State)
	}
}

// recvFrame reads the next frame from the peer's end of a pipe.
func recvFrame(t *testing.T, peer transport.Conn) wireMessage {
	t.Helper()
	ch := make(chan transport.Message, 1)
	go func() { m, _ := peer.Recv(); ch <- m }()
	select {
	case m := <-ch:
		var w wireMessage
		if err := json.Unmarshal(m.Data, &w); err != nil {
			t.Fatalf("frame %q: %v", m.Data, err)
		}
		return w
	case <-time.After(hangGuard):
		t.Fatal("no frame")
	}
	return wireMessage{}
}

// A result without supportedVersions is no DiscoverResult: an error that
// is not a refusal, so the caller falls back.
func TestDiscoverResultWithoutSupportedVersions(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	_, _, err := h.discover(DiscoverOptions{Era2026Options: Era2026Options{ClientInfo: testClient}},
		`"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"old","version":"1"}}`)
	if _, refused := AsVersionRefused(err, Era2026Version); err == nil || refused || h.s.Era2026() {
		t.Fatalf("err %v, modern %v", err, h.s.Era2026())
	}
}

// Notifications tagged with a subscription's id are filed under it: the
// acknowledgement first; one before it, or for no subscription of ours,
// is flagged.
func TestSubscriptionNotificationsAreFiled(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.s.UseEra2026(Era2026Options{ClientInfo: testClient})
	listen, _ := h.s.Call(context.Background(), "subscriptions/listen", map[string]any{"notifications": map[string]bool{"toolsListChanged": true}}, CallOptions{NoProgressToken: true})
	h.readFrame()
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`)
	h.events.waitFor(t, "before the ack", func(e Event) bool { v, ok := e.(Violation); return ok && v.Kind == ViolationSubscriptionBeforeAck })
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":true}}}`)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`)
	h.peerSend(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":99}}}`)
	h.events.waitFor(t, "an unknown subscription", func(e Event) bool { v, ok := e.(Violation); return ok && v.Kind == ViolationSubscriptionUnknown })
	info, _ := h.s.Request(listen.Ref()).Info()
	l := info.Listening
	if l == nil || string(l.Acknowledged) != `{"toolsListChanged":true}` || l.Count != 2 || len(l.Last) != 2 || l.Last[1].Method != "notifications/tools/list_changed" {
		t.Fatalf("listening %+v", l)
	}
	// The server's graceful end: a response tagged with the id.
	h.peerSend(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`)
	if _, st, _ := waitResult(t, listen); st != Completed {
		t.Fatalf("state %v", st)
	}
}

// In the modern era the log level is set once and goes in every request;
// a request's own level wins.
func TestModernLogLevel(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	if err := h.s.SetLogLevel("info"); err == nil {
		t.Fatal("SetLogLevel in a legacy session")
	}
	h.s.UseEra2026(Era2026Options{ClientInfo: testClient})
	if err := h.s.SetLogLevel("warning"); err != nil {
		t.Fatal(err)
	}
	h.s.Call(context.Background(), "tools/list", nil, CallOptions{})
	if got := string(metaOf(t, h.readFrame().Params)[MetaLogLevel]); got != `"warning"` {
		t.Errorf("logLevel %s", got)
	}
	h.s.Call(context.Background(), "tools/list", nil, CallOptions{LogLevel: "debug"})
	if got := string(metaOf(t, h.readFrame().Params)[MetaLogLevel]); got != `"debug"` {
		t.Errorf("logLevel %s", got)
	}
}

// A modern server that sends a request anyway is flagged, and answered.
func TestModernServerRequestIsFlagged(t *testing.T) {
	h := newHarness(t, harnessOpts{})
	h.s.UseEra2026(Era2026Options{ClientInfo: testClient})
	h.peerSend(`{"jsonrpc":"2.0","id":"s1","method":"ping"}`)
	v := h.events.waitFor(t, "violation", func(e Event) bool { v, ok := e.(Violation); return ok && v.Kind == ViolationServerRequest }).(Violation)
	if !strings.Contains(v.Detail, "ping request") {
		t.Errorf("detail %q", v.Detail)
	}
	if m := h.readFrame(); string(m.ID) != `"s1"` || m.Result == nil {
		t.Fatalf("answer %+v", m)
	}
}

// BenchmarkRoundTripModern is BenchmarkRoundTrip in 2026-07-28, where
// every request carries the era's _meta: what that costs per call.
func BenchmarkRoundTripModern(b *testing.B) {
	cli, _ := newBenchPair(b)
	cli.UseEra2026(Era2026Options{ClientInfo: testClient})
	params := json.RawMessage(`{"text":"hi"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cli.Do(ctx, "echo", params, CallOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
