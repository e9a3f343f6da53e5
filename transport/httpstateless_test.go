package transport

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// The examples of the spec's Value Encoding table, both ways.
func TestHeaderValueEncoding(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"us-west1", "us-west1"},
		{"Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="},
		{" padded ", "=?base64?IHBhZGRlZCA=?="},
		{"line1\nline2", "=?base64?bGluZTEKbGluZTI=?="},
		{"=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
		{"a\tb c", "a\tb c"},
	} {
		got := EncodeHeaderValue(tc.in)
		if got != tc.want {
			t.Errorf("EncodeHeaderValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back, ok := DecodeHeaderValue(got); !ok || back != tc.in {
			t.Errorf("DecodeHeaderValue(%q) = %q %v", got, back, ok)
		}
	}
	if _, ok := DecodeHeaderValue("=?base64?!!!?="); ok {
		t.Error("invalid base64 decoded")
	}
}

const modernCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Hello, 世界","arguments":{},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// A modern request's POST mirrors its version, method and name in headers,
// and carries no session id.
func TestModernPostMirrorsTheBody(t *testing.T) {
	headers := make(chan http.Header, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers <- r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete"}}`)
	}))
	defer srv.Close()
	h := dialTest(t, srv.URL, nil)
	if !h.HasRequestStreams() {
		t.Fatal("HasRequestStreams is false")
	}
	if err := h.Send([]byte(modernCall)); err != nil {
		t.Fatal(err)
	}
	got := recvWithin(t, headers, "the POST's headers at the server")
	for name, want := range map[string]string{
		"MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             "=?base64?SGVsbG8sIOS4lueVjA==?=",
		"Mcp-Session-Id":       "",
	} {
		if g := got.Get(name); g != want {
			t.Errorf("%s: %q, want %q", name, g, want)
		}
	}
	recvUntil(t, h, wire.KindFrame)
	// A legacy request gets none of it.
	if err := h.Send([]byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x"}}`)); err != nil {
		t.Fatal(err)
	}
	if got := recvWithin(t, headers, "the legacy POST's headers at the server"); got.Get("Mcp-Method") != "" || got.Get("Mcp-Name") != "" {
		t.Errorf("legacy POST headers %v", got)
	}
}

// A refusal with a JSON-RPC error body is that request's answer: the
// session reads its code. One that names no id fails the request with the
// error attached.
func TestErrorBodyAnswersTheRequest(t *testing.T) {
	body := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, <-body)
	}))
	defer srv.Close()
	h := dialTest(t, srv.URL, nil)
	body <- `{"jsonrpc":"2.0","id":7,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"]}}}`
	h.Send([]byte(modernCall))
	m, facts := recvUntil(t, h, wire.KindFrame)
	if !strings.Contains(string(m.Data), "-32022") || !strings.Contains(strings.Join(facts, "\n"), "400") {
		t.Fatalf("frame %s, facts %q", m.Data, facts)
	}
	body <- `{"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"Header mismatch"}}`
	h.Send([]byte(strings.Replace(modernCall, `"id":7`, `"id":8`, 1)))
	m, _ = recvUntil(t, h, wire.KindRequestError)
	if string(m.ID) != "8" || !strings.Contains(string(m.RPCError), "-32020") {
		t.Fatalf("request error %+v", m)
	}
}

// A modern stream that breaks before its answer loses the request: no
// resumption is tried.
func TestModernBrokenStreamIsLost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			t.Error("a GET resumption was tried")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7,\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		conn, _, _ := http.NewResponseController(w).Hijack()
		conn.Close()
	}))
	defer srv.Close()
	h := dialTest(t, srv.URL, nil)
	h.Send([]byte(modernCall))
	m, _ := recvUntil(t, h, wire.KindRequestError)
	if m.Why != StreamBroke || string(m.ID) != "7" || !strings.Contains(string(m.Data), "no resumption") {
		t.Fatalf("request error %+v %s", m, m.Data)
	}
}

// recordingPeer answers echo at once and holds slow until its client
// leaves, recording how its Recv ended.
type recordingPeer struct {
	conn  Conn
	ended chan error
}

func (p *recordingPeer) run() {
	for {
		m, err := p.conn.Recv()
		if err != nil {
			p.ended <- err
			return
		}
		var f struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta struct {
					Token json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			} `json:"params"`
		}
		_ = json.Unmarshal(m.Data, &f)
		if f.Method == "unknown/method" {
			_ = p.conn.Send([]byte(`{"jsonrpc":"2.0","id":` + string(f.ID) + `,"error":{"code":-32601,"message":"no such method"}}`))
			continue
		}
		if f.Method == "slow" {
			_ = p.conn.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(f.Params.Meta.Token) + `,"progress":1}}`))
			continue
		}
		_ = p.conn.Send([]byte(`{"jsonrpc":"2.0","id":` + string(f.ID) + `,"result":{"resultType":"complete"}}`))
	}
}

func (p *recordingPeer) Close() error { return p.conn.Close() }

func newModernServer(t *testing.T) (*testHTTPServer, chan *recordingPeer) {
	peers := make(chan *recordingPeer, 8)
	s := newTestHTTPServer(t, HTTPServerConfig{ServeStateless: func(conn Conn) io.Closer {
		p := &recordingPeer{conn: conn, ended: make(chan error, 1)}
		go p.run()
		peers <- p
		return p
	}})
	return s, peers
}

func modernBody(id, method, name string) string {
	params := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":` + id + `}`
	if name != "" {
		params += `,"name":"` + name + `"`
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + params + `}}`
}

// The server's modern leg checks the headers against the body, and the
// version, answering with the spec's JSON-RPC errors and their ids.
func TestModernServerValidates(t *testing.T) {
	s, _ := newModernServer(t)
	for _, tc := range []struct {
		what   string
		body   string
		header []string
		status int
		want   string
	}{
		{"no Mcp-Method", modernBody("1", "echo", ""), []string{"MCP-Protocol-Version", "2026-07-28"}, 400, `"code":-32020`},
		{"another version in the header", modernBody("2", "echo", ""), []string{"MCP-Protocol-Version", "2025-11-25", "Mcp-Method", "echo"}, 400, `"code":-32020`},
		{"Mcp-Name differs", modernBody("3", "tools/call", "sleep"), []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "slep"}, 400, `"id":3`},
		{"an unknown version", strings.Replace(modernBody("4", "echo", ""), "2026-07-28", "2027-01-01", 1),
			[]string{"MCP-Protocol-Version", "2027-01-01", "Mcp-Method", "echo"}, 400, `"supported":["2026-07-28","2025-03-26","2025-06-18","2025-11-25"]`},
		{"no _meta", `{"jsonrpc":"2.0","id":6,"method":"echo","params":{}}`, []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "echo"},
			400, `"error":{"code":-32602,"message":"Invalid params: params._meta is missing`},
		{"_meta without clientCapabilities", `{"jsonrpc":"2.0","id":7,"method":"echo","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			[]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "echo"}, 400, `"code":-32602`},
		{"a version of neither era", strings.ReplaceAll(modernBody("8", "echo", ""), "2026-07-28", "v999"), []string{"MCP-Protocol-Version", "v999", "Mcp-Method", "echo"},
			400, `"data":{"requested":"v999","supported":["2026-07-28","2025-03-26","2025-06-18","2025-11-25"]},"message":"Unsupported protocol version: v999; this server speaks 2026-07-28, 2025-03-26, 2025-06-18, 2025-11-25"},"id":8`},
		{"a body of a version of neither era", strings.ReplaceAll(modernBody("9", "echo", ""), "2026-07-28", "v999"), []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "echo"},
			400, `"code":-32020`},
		{"an unknown method", modernBody("10", "unknown/method", ""), []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "unknown/method"},
			404, `"code":-32601`},
		{"matching headers", modernBody("5", "tools/call", "Hello, 世界"), []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call",
			"Mcp-Name", EncodeHeaderValue("Hello, 世界")}, 200, `"id":5,"result"`},
	} {
		resp := s.do(http.MethodPost, tc.body, tc.header...)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %d %s, want %d with %s", tc.what, resp.StatusCode, b, tc.status, tc.want)
		}
		if resp.Header.Get(HeaderSessionID) != "" {
			t.Errorf("%s: a session id was minted", tc.what)
		}
	}
	resp := s.do(http.MethodGet, "", "MCP-Protocol-Version", "2026-07-28")
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d, want 405", resp.StatusCode)
	}
}

// Progress turns the answer into a stream; the client closing it is the
// request's cancel, which the peer sees as ErrStreamClosed.
func TestModernServerStreamCloseCancels(t *testing.T) {
	s, peers := newModernServer(t)
	resp := s.do(http.MethodPost, modernBody("9", "slow", ""), "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "slow")
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	e := readServerEvent(t, bufio.NewReader(resp.Body))
	if e.id != "" || !strings.Contains(e.data, "notifications/progress") {
		t.Fatalf("event %+v (modern events have no id)", e)
	}
	resp.Body.Close()
	p := recvWithin(t, peers, "the server's peer")
	select {
	case err := <-p.ended:
		if !errors.Is(err, ErrStreamClosed) {
			t.Fatalf("the peer's Recv ended with %v, want ErrStreamClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the peer never heard the stream close")
	}
}

// mcpoke's own client and server, modern end to end: CloseRequestStream
// is the cancel the server's peer sees.
func TestModernCloseRequestStreamEndToEnd(t *testing.T) {
	s, peers := newModernServer(t)
	h := dialTest(t, s.url, nil)
	frame := strings.Replace(modernBody("11", "slow", ""), `"params":{`, `"params":{"name":"x",`, 1)
	if err := h.Send([]byte(frame)); err != nil {
		t.Fatal(err)
	}
	if m, _ := recvUntil(t, h, wire.KindFrame); !strings.Contains(string(m.Data), "notifications/progress") {
		t.Fatalf("first frame %s", m.Data)
	}
	if ok, err := h.CloseRequestStream([]byte("11")); !ok || err != nil {
		t.Fatalf("CloseRequestStream: %v %v", ok, err)
	}
	p := recvWithin(t, peers, "the server's peer")
	select {
	case err := <-p.ended:
		if !errors.Is(err, ErrStreamClosed) {
			t.Fatalf("the peer's Recv ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the peer never heard the stream close")
	}
	// Closing it was ours: the request is not reported lost.
	for {
		m, err := recvTimeout(h, 200*time.Millisecond)
		if err != nil {
			break
		}
		if m.Kind == wire.KindRequestError {
			t.Fatalf("request error after our own close: %s", m.Data)
		}
	}
}

// The tasks extension's methods name their task in Mcp-Name (params.taskId),
// so that intermediaries route every request of a task to its server.
func TestModernTaskMethodsCarryTheTaskID(t *testing.T) {
	headers := make(chan http.Header, 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers <- r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`)
	}))
	defer srv.Close()
	h := dialTest(t, srv.URL, nil)
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"taskId":"t-1","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
		if err := h.Send([]byte(body)); err != nil {
			t.Fatal(err)
		}
		got := recvWithin(t, headers, method+"'s headers at the server")
		if got.Get("Mcp-Method") != method || got.Get("Mcp-Name") != "t-1" {
			t.Errorf("%s: Mcp-Method %q Mcp-Name %q", method, got.Get("Mcp-Method"), got.Get("Mcp-Name"))
		}
		recvUntil(t, h, wire.KindFrame)
	}
}
