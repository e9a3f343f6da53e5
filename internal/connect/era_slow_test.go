package connect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

const modernDiscover = `"result":{"resultType":"complete","supportedVersions":["2025-11-25","2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"slow","version":"1"}}}`

// waitFor waits up to 5 s for ch, naming what it waited for.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatalf("no %s within 5s", what)
	}
}

// A 2026-07-28 server mcpoke starts itself whose start takes 5 seconds
// (npx or uvx on a cold cache) answers server/discover then: the probe
// waits as long as initialize would, and the session is modern. With the
// old fixed 3 s probe it was spoken to as 2025-11-25.
func TestAutoWaitsForASlowLocalStart(t *testing.T) {
	ForgetEras()
	clk := clocktest.New()
	a, b := transporttest.Pipe()
	p := &scriptedPeer{}
	discoverSeen, answer := make(chan struct{}), make(chan struct{})
	var once sync.Once
	go p.serve(b, func(m string) string {
		switch m {
		case "server/discover":
			once.Do(func() { close(discoverSeen) })
			<-answer
			return modernDiscover
		case "initialize":
			return fmt.Sprintf(legacyInit, "2025-11-25")
		}
		return ""
	})
	c := Attach(Spec{Name: "slow-start", Command: "npx"}, a, Options{Protocol: ProtocolAuto, Session: session.Config{Clock: clk}})
	t.Cleanup(func() { c.Close(); b.Close() })
	type outcome struct {
		peer session.PeerInfo
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		peer, err := c.Initialize(ctx)
		done <- outcome{peer, err}
	}()
	waitFor(t, discoverSeen, "server/discover at the server")
	clk.Advance(5 * time.Second) // the server is still starting
	close(answer)
	var o outcome
	select {
	case o = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the handshake did not end within 5s")
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.peer.ProtocolVersion != session.Era2026Version || o.peer.Negotiation != "server/discover" {
		t.Fatalf("spoken to in %s (by %q), want %s by server/discover", o.peer.ProtocolVersion, o.peer.Negotiation, session.Era2026Version)
	}
	if got := strings.Join(p.received(), " "); got != "server/discover" {
		t.Fatalf("the server received %s", got)
	}
}

// fakeLogin is an Authorizer whose login waits for the test: the person
// in the browser.
type fakeLogin struct {
	loggingIn atomic.Bool
	begun     atomic.Int64
	token     atomic.Value  // string
	started   chan struct{} // closed when the login begins
	finish    chan struct{} // closed by the test: the person is done
}

func (f *fakeLogin) Authorization(context.Context) string {
	s, _ := f.token.Load().(string)
	return s
}

func (f *fakeLogin) Challenged(ctx context.Context, _ string, _ *http.Response) (bool, error) {
	f.loggingIn.Store(true)
	f.begun.Add(1)
	defer f.loggingIn.Store(false)
	close(f.started)
	select {
	case <-f.finish:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	f.token.Store("Bearer ok")
	return true, nil
}

func (f *fakeLogin) LoggingIn() bool    { return f.loggingIn.Load() }
func (f *fakeLogin) LoginsBegun() int64 { return f.begun.Load() }

// A 2026-07-28 server behind OAuth, reached through a login that takes
// the person 10 seconds: the probe's clock stops while the login waits,
// and the session is modern. With the old fixed 3 s probe the discover
// timed out during the login and the server was spoken to as 2025-11-25.
func TestAutoWaitsForALogin(t *testing.T) {
	ForgetEras()
	var mu sync.Mutex
	var methods []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if r.Header.Get("Authorization") != "Bearer ok" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="test"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var f struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &f)
		mu.Lock()
		methods = append(methods, f.Method)
		mu.Unlock()
		if f.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		answer := `"error":{"code":-32601,"message":"Method not found"}`
		switch f.Method {
		case "server/discover":
			answer = modernDiscover
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "s1")
			answer = fmt.Sprintf(legacyInit, "2025-11-25")
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,%s}`, f.ID, answer)
	}))
	defer srv.Close()

	clk := clocktest.New()
	login := &fakeLogin{started: make(chan struct{}), finish: make(chan struct{})}
	c, err := Start(Spec{Name: "oauth", URL: srv.URL, Transport: "http"}, Options{Protocol: ProtocolAuto, Auth: login, Session: session.Config{Clock: clk}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	type outcome struct {
		peer session.PeerInfo
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		peer, err := c.Initialize(ctx)
		done <- outcome{peer, err}
	}()
	waitFor(t, login.started, "login")
	for range 10 {
		clk.Advance(time.Second) // the person reads, types, clicks
	}
	close(login.finish)
	var o outcome
	select {
	case o = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the handshake did not end within 5s")
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.peer.ProtocolVersion != session.Era2026Version || o.peer.Negotiation != "server/discover" {
		t.Fatalf("spoken to in %s (by %q), want %s by server/discover", o.peer.ProtocolVersion, o.peer.Negotiation, session.Era2026Version)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(methods, " "); got != "server/discover" {
		t.Fatalf("the server answered %s", got)
	}
}

// lateModernPeer is a modern server too slow for the probe: it answers
// server/discover only when initialize comes, then initialize (it speaks
// both eras), and a second server/discover as second says.
func lateModernPeer(conn transport.Conn, second string, got *[]string, mu *sync.Mutex) {
	var probeID json.RawMessage
	discovers := 0
	for {
		m, err := conn.Recv()
		if err != nil {
			return
		}
		var f struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(m.Data, &f) != nil {
			continue
		}
		mu.Lock()
		*got = append(*got, f.Method)
		mu.Unlock()
		switch f.Method {
		case "server/discover":
			if discovers++; discovers == 1 {
				probeID = f.ID // answered late, when initialize comes
				continue
			}
			_ = conn.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,%s}`, f.ID, second))
		case "initialize":
			_ = conn.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,%s}`, probeID, modernDiscover))
			_ = conn.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,%s}`, f.ID, fmt.Sprintf(legacyInit, "2025-11-25")))
		case "tools/list":
			_ = conn.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, f.ID))
		}
	}
}

// The probe's answer comes after its timeout, once initialize has gone
// out, and shows a modern server: server/discover goes again before
// anything else, and the session is modern, not left in the legacy
// fallback.
func TestAutoRenegotiatesAfterALateModernAnswer(t *testing.T) {
	ForgetEras()
	a, b := transporttest.Pipe()
	var mu sync.Mutex
	var got []string
	go lateModernPeer(b, modernDiscover, &got, &mu)
	c := Attach(Spec{Name: "late-modern"}, a, Options{Protocol: ProtocolAuto, ProbeTimeout: 20 * time.Millisecond})
	t.Cleanup(func() { c.Close(); b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	peer, err := c.Initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !peer.Era2026() || !c.Session.Era2026() || !strings.Contains(peer.Negotiation, "again: the probe's answer came after its timeout") {
		t.Fatalf("peer %+v, session modern %v", peer, c.Session.Era2026())
	}
	if _, err := c.Session.Do(ctx, "tools/list", nil, session.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if s := strings.Join(got, " "); s != "server/discover initialize notifications/initialized server/discover tools/list" {
		t.Fatalf("the server received %s", s)
	}
}

// When the second server/discover fails, the legacy session stays and
// says plainly that its era is a fallback, and why.
func TestAutoSaysTheEraIsAFallback(t *testing.T) {
	ForgetEras()
	a, b := transporttest.Pipe()
	var mu sync.Mutex
	var got []string
	go lateModernPeer(b, `"error":{"code":-32600,"message":"already initialized"}`, &got, &mu)
	c := Attach(Spec{Name: "late-modern"}, a, Options{Protocol: ProtocolAuto, ProbeTimeout: 20 * time.Millisecond})
	t.Cleanup(func() { c.Close(); b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	peer, err := c.Initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if peer.Era2026() || c.Session.Era2026() || !strings.Contains(peer.Negotiation, "a fallback: the probe's late answer lists 2026-07-28, but server/discover again failed: already initialized") ||
		c.Session.Peer().Negotiation != peer.Negotiation || c.Session.Peer().ProtocolVersion != "2025-11-25" {
		t.Fatalf("peer %+v, session peer %+v", peer, c.Session.Peer())
	}
}
