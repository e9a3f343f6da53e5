package transport

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// A described send takes what its POST carries from the description, not
// from the body: the headers here say what the body does not, which only
// a transport that trusts the sender (and does not parse the frame again)
// can write.
func TestSendOutgoingTakesTheDescription(t *testing.T) {
	headers := make(chan http.Header, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers <- r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{}}`)
	}))
	defer srv.Close()
	h := dialTest(t, srv.URL, nil)
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"in-the-body"}}`
	_, err := h.SendOutgoing(Outgoing{Frame: []byte(body), ID: "7", Method: "tools/call",
		Mirror: &Mirror{Version: "2026-07-28", Name: "described", HasName: true, Params: map[string]string{"Region": "us-west1"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := recvWithin(t, headers, "the POST's headers at the server")
	for name, want := range map[string]string{
		"MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             "described",
		"Mcp-Param-Region":     "us-west1",
	} {
		if g := got.Get(name); g != want {
			t.Errorf("%s: %q, want %q", name, g, want)
		}
	}
	recvUntil(t, h, wire.KindFrame)

	// Only a request mirrors: a described notification's Mirror is
	// dropped.
	_, err = h.SendOutgoing(Outgoing{Frame: []byte(`{"jsonrpc":"2.0","method":"notifications/x"}`), Method: "notifications/x",
		Mirror: &Mirror{Version: "2026-07-28", Name: "n", HasName: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got := recvWithin(t, headers, "the notification's headers"); got.Get("Mcp-Method") != "" || got.Get("Mcp-Name") != "" {
		t.Errorf("a notification's POST mirrored: %v", got)
	}
}

// A Tap passes the description through to the transport it wraps and
// stamps the write.
func TestTapPassesTheDescription(t *testing.T) {
	got := make(chan Outgoing, 1)
	tap := NewTap(describedConn{got: got}, time.Now)
	at, err := tap.SendOutgoing(Outgoing{Frame: []byte(`{}`), ID: "3", Method: "m", Mirror: &Mirror{Version: "v"}})
	if err != nil || at.IsZero() {
		t.Fatalf("SendOutgoing = %v, %v; want a stamp and no error", at, err)
	}
	o := recvWithin(t, got, "the wrapped Conn's SendOutgoing")
	if o.ID != "3" || o.Method != "m" || o.Mirror == nil || o.Mirror.Version != "v" {
		t.Errorf("the wrapped Conn got %+v", o)
	}
}

// describedConn records what SendOutgoing gave it.
type describedConn struct {
	Conn
	got chan Outgoing
}

func (c describedConn) SendOutgoing(o Outgoing) (time.Time, error) {
	c.got <- o
	return time.Time{}, nil
}
