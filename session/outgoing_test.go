package session

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/transport"
)

// describingConn records what the session says of each frame it sends
// (transport.Sender), and passes the frame on.
type describingConn struct {
	transport.Conn
	mu   sync.Mutex
	sent []transport.Outgoing
}

func (c *describingConn) SendOutgoing(o transport.Outgoing) (time.Time, error) {
	c.mu.Lock()
	c.sent = append(c.sent, o)
	c.mu.Unlock()
	return time.Time{}, c.Conn.Send(o.Frame)
}

func (c *describingConn) last(t *testing.T) transport.Outgoing {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.sent) == 0 {
		t.Fatal("nothing was sent through SendOutgoing")
	}
	return c.sent[len(c.sent)-1]
}

// The session says what it sends beside the bytes: the id, the method
// and, in the 2026-07-28 era, what the request's POST mirrors in headers
// (the version, the name its method names, the Mcp-Param headers), so
// that the transport reads none of it from the frame. A 2025 request
// mirrors nothing, and a notification has no id.
func TestSendCarriesWhatTheSessionKnows(t *testing.T) {
	a, peer := transporttest.Pipe()
	t.Cleanup(func() { peer.Close() })
	go func() {
		for {
			if _, err := peer.Recv(); err != nil {
				return
			}
		}
	}()
	conn := &describingConn{Conn: a}
	s := New(conn, Config{NoProgressTokens: true})
	t.Cleanup(func() { s.Close() })

	if _, err := s.Call(context.Background(), "tools/call", map[string]any{"name": "echo"}, CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if o := conn.last(t); o.ID != "1" || o.Method != "tools/call" || o.Mirror != nil {
		t.Errorf("a 2025 tools/call went out as id %q method %q mirror %+v; want id 1, tools/call, no mirror", o.ID, o.Method, o.Mirror)
	}

	s.UseEra2026(Era2026Options{ClientInfo: testClient})
	headers := map[string]string{"Region": "us-west1"}
	if _, err := s.Call(context.Background(), "tools/call", map[string]any{"name": "echo"}, CallOptions{ParamHeaders: headers}); err != nil {
		t.Fatal(err)
	}
	o := conn.last(t)
	if o.ID != "2" || o.Method != "tools/call" || o.Mirror == nil {
		t.Fatalf("a 2026 tools/call went out as %+v; want id 2, tools/call and a mirror", o)
	}
	if m := o.Mirror; m.Version != Era2026Version || !m.HasName || m.Name != "echo" || m.Params["Region"] != "us-west1" {
		t.Errorf("mirror %+v; want version %s, name echo, Mcp-Param-Region us-west1", *m, Era2026Version)
	}
	if _, err := s.Call(context.Background(), "resources/read", map[string]any{"uri": "file:///a"}, CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if m := conn.last(t).Mirror; m == nil || !m.HasName || m.Name != "file:///a" {
		t.Errorf("resources/read mirror %+v; want the uri as its name", m)
	}
	if _, err := s.Call(context.Background(), "tools/list", nil, CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if m := conn.last(t).Mirror; m == nil || m.HasName {
		t.Errorf("tools/list mirror %+v; want the version and no name", m)
	}

	if err := s.Notify("notifications/x-test", nil); err != nil {
		t.Fatal(err)
	}
	if o := conn.last(t); o.ID != "" || o.Method != "notifications/x-test" {
		t.Errorf("a notification went out as id %q method %q", o.ID, o.Method)
	}
}
