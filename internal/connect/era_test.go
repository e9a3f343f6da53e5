package connect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/transport"
)

// scriptedPeer answers each request with what answer returns for its
// method ("" sends nothing), and keeps the methods it received, in order.
type scriptedPeer struct {
	mu      sync.Mutex
	methods []string
}

// received returns the methods received so far, after waiting a little
// for the notification that may trail a handshake.
func (p *scriptedPeer) received() []string {
	for range 100 {
		p.mu.Lock()
		n := len(p.methods)
		last := ""
		if n > 0 {
			last = p.methods[n-1]
		}
		p.mu.Unlock()
		if last != "initialize" {
			break
		}
		time.Sleep(time.Millisecond)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.methods...)
}

// serve reads conn until it ends. answer gets the method and returns the
// JSON after "id":ID, such as `"result":{}`.
func (p *scriptedPeer) serve(conn transport.Conn, answer func(method string) string) {
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
		p.mu.Lock()
		p.methods = append(p.methods, f.Method)
		p.mu.Unlock()
		if f.ID == nil {
			continue
		}
		if a := answer(f.Method); a != "" {
			_ = conn.Send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,%s}`, f.ID, a))
		}
	}
}

const legacyInit = `"result":{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"old","version":"1"}}`

// connectScripted attaches to a scripted peer with opts and runs the
// handshake.
func connectScripted(t *testing.T, spec Spec, opts Options, answer func(string) string) (*Conn, *scriptedPeer, session.PeerInfo, error) {
	t.Helper()
	a, b := transporttest.Pipe()
	p := &scriptedPeer{}
	go p.serve(b, answer)
	c := Attach(spec, a, opts)
	t.Cleanup(func() { c.Close(); b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	peer, err := c.Initialize(ctx)
	return c, p, peer, err
}

// auto against the demo server: server/discover answers, the era is
// modern, and the request that follows carries the era's _meta.
func TestAutoFindsAModernServer(t *testing.T) {
	ForgetEras()
	a, b := transporttest.Pipe()
	srv := demo.NewSession(b, io.Discard)
	defer srv.Close()
	c := Attach(Spec{Name: "demo-mem"}, a, Options{Protocol: ProtocolAuto})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	peer, err := c.Initialize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if peer.ProtocolVersion != session.Era2026Version || peer.Negotiation != "server/discover" || peer.ServerInfo.Name != demo.ServerName ||
		c.Session.Peer().Negotiation != "server/discover" || !c.Session.Era2026() {
		t.Fatalf("peer %+v", peer)
	}
	res, err := c.Session.Do(ctx, "tools/list", nil, session.CallOptions{})
	if err != nil || !strings.Contains(string(res), `"resultType":"complete"`) || !strings.Contains(string(res), `"ttlMs"`) {
		t.Fatalf("tools/list: %s %v", res, err)
	}
}

// auto against a legacy server that refuses server/discover: initialize
// follows, and the negotiation says why.
func TestAutoFallsBackOnAnyError(t *testing.T) {
	ForgetEras()
	_, p, peer, err := connectScripted(t, Spec{Name: "legacy"}, Options{Protocol: ProtocolAuto}, func(m string) string {
		switch m {
		case "server/discover":
			return `"error":{"code":-32602,"message":"not initialized"}`
		case "initialize":
			return fmt.Sprintf(legacyInit, "2025-11-25")
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if peer.ProtocolVersion != "2025-11-25" || peer.Era2026() || !strings.HasPrefix(peer.Negotiation, "initialize, after server/discover failed: ") ||
		!strings.Contains(peer.Negotiation, "not initialized") {
		t.Fatalf("peer %+v", peer)
	}
	if got := strings.Join(p.received(), " "); got != "server/discover initialize notifications/initialized" {
		t.Fatalf("the server received %s", got)
	}
}

// A legacy server that ignores the probe: after the probe timeout,
// initialize, and no cancel went for the probe.
func TestAutoFallsBackOnSilence(t *testing.T) {
	ForgetEras()
	_, p, peer, err := connectScripted(t, Spec{Name: "silent"}, Options{Protocol: ProtocolAuto, ProbeTimeout: 50 * time.Millisecond}, func(m string) string {
		if m == "initialize" {
			return fmt.Sprintf(legacyInit, "2025-06-18")
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if peer.ProtocolVersion != "2025-06-18" || !strings.Contains(peer.Negotiation, "timed out") {
		t.Fatalf("peer %+v", peer)
	}
	if got := strings.Join(p.received(), " "); got != "server/discover initialize notifications/initialized" {
		t.Fatalf("the server received %s (no cancel of the probe)", got)
	}
}

// UnsupportedProtocolVersion names what to speak: here a legacy version,
// reached with initialize; a modern server is never sent initialize.
func TestAutoTakesTheVersionTheServerNames(t *testing.T) {
	ForgetEras()
	_, p, peer, err := connectScripted(t, Spec{Name: "picky"}, Options{Protocol: ProtocolAuto}, func(m string) string {
		switch m {
		case "server/discover":
			return `"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-03-26"],"requested":"2026-07-28"}}`
		case "initialize":
			return fmt.Sprintf(legacyInit, "2025-03-26")
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if peer.ProtocolVersion != "2025-03-26" || !strings.Contains(peer.Negotiation, "server/discover refused 2026-07-28 and named 2025-03-26") {
		t.Fatalf("peer %+v", peer)
	}
	if got := p.received(); len(got) != 3 || got[1] != "initialize" || got[2] != "notifications/initialized" {
		t.Fatalf("the server received %v", got)
	}
}

// A modern server that was slow to answer the probe refuses initialize
// with the versions it speaks: the session turns modern.
func TestAutoTurnsModernWhenInitializeIsRefused(t *testing.T) {
	ForgetEras()
	discovers := 0 // the peer's goroutine alone counts
	_, p, peer, err := connectScripted(t, Spec{Name: "slow-modern"}, Options{Protocol: ProtocolAuto, ProbeTimeout: 50 * time.Millisecond}, func(m string) string {
		switch m {
		case "initialize":
			return `"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}`
		case "server/discover":
			if discovers++; discovers == 1 {
				return "" // the probe: too slow
			}
			return `"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}`
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if !peer.Era2026() || !strings.Contains(peer.Negotiation, "initialize refused 2025-11-25") {
		t.Fatalf("peer %+v", peer)
	}
	if got := strings.Join(p.received(), " "); got != "server/discover initialize server/discover" {
		t.Fatalf("the server received %s", got)
	}
}

// --protocol 2026-07-28 against a legacy server: no fallback, and the
// error says what to do.
func TestForcedModernDoesNotFallBack(t *testing.T) {
	ForgetEras()
	_, p, _, err := connectScripted(t, Spec{Name: "legacy"}, Options{Protocol: session.Era2026Version}, func(m string) string {
		return `"error":{"code":-32601,"message":"Method not found"}`
	})
	if err == nil || !strings.Contains(err.Error(), "try --protocol auto") {
		t.Fatalf("err %v", err)
	}
	if got := p.received(); len(got) != 1 {
		t.Fatalf("the server received %v", got)
	}
}

// The era found is remembered for the server: a reconnect goes straight
// to initialize.
func TestAutoRemembersTheEra(t *testing.T) {
	ForgetEras()
	answer := func(m string) string {
		switch m {
		case "server/discover":
			return `"error":{"code":-32601,"message":"Method not found"}`
		case "initialize":
			return fmt.Sprintf(legacyInit, "2025-11-25")
		}
		return ""
	}
	spec := Spec{Name: "twice", Command: "legacy-server"}
	if _, _, _, err := connectScripted(t, spec, Options{Protocol: ProtocolAuto}, answer); err != nil {
		t.Fatal(err)
	}
	_, p, peer, err := connectScripted(t, spec, Options{Protocol: ProtocolAuto}, answer)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.received(), " "); got != "initialize notifications/initialized" || !strings.Contains(peer.Negotiation, "found before") {
		t.Fatalf("the second connection: %s, %q", got, peer.Negotiation)
	}
}

// A server that refuses the version asked for while listing it among
// those it supports (the suite's request-metadata scenario) is asked
// again with it, once, whether mcpoke chose the version or was told to.
func TestARefusalListingOurVersionIsRetried(t *testing.T) {
	for _, protocol := range []string{ProtocolAuto, session.Era2026Version} {
		ForgetEras()
		discovers := 0 // the peer's goroutine alone counts
		_, p, peer, err := connectScripted(t, Spec{Name: "fickle"}, Options{Protocol: protocol}, func(m string) string {
			if m != "server/discover" {
				return `"error":{"code":-32601,"message":"Method not found"}`
			}
			if discovers++; discovers == 1 {
				return `"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}`
			}
			return `"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public"}`
		})
		if err != nil {
			t.Fatalf("--protocol %s: %v", protocol, err)
		}
		if !peer.Era2026() || !strings.Contains(peer.Negotiation, "refused 2026-07-28 and named 2026-07-28") {
			t.Errorf("--protocol %s: peer %+v", protocol, peer)
		}
		if got := strings.Join(p.received(), " "); got != "server/discover server/discover" {
			t.Errorf("--protocol %s: the server received %s", protocol, got)
		}
	}
	// Refused twice: one retry only, and the error says the server
	// contradicts itself instead of contradicting itself.
	ForgetEras()
	_, p, _, err := connectScripted(t, Spec{Name: "stubborn"}, Options{Protocol: session.Era2026Version}, func(string) string {
		return `"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}`
	})
	if err == nil || !strings.Contains(err.Error(), "yet it lists 2026-07-28 among those it supports") {
		t.Fatalf("err %v", err)
	}
	if got := p.received(); len(got) != 2 {
		t.Fatalf("the server received %v", got)
	}
}
