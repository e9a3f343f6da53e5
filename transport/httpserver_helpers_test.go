package transport

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakePeer answers on an HTTP session's Conn the way a tiny MCP server
// would, so the tests see the transport's routing and nothing else.
//
//	initialize, echo: answered at once
//	slow: two progress notifications for its token, then the answer once
//	      release is closed
//	poke: a ping request and a log notification (for the GET stream), then {}
//
// Notifications and responses from the client land in got.
type fakePeer struct {
	conn    Conn
	release chan struct{}
	got     chan string
	done    chan struct{}
	wg      sync.WaitGroup
}

func newFakePeer(conn Conn) *fakePeer {
	p := &fakePeer{conn: conn, release: make(chan struct{}), got: make(chan string, 64), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *fakePeer) Close() error {
	_ = p.conn.Close()
	<-p.done
	p.wg.Wait()
	return nil
}

func (p *fakePeer) run() {
	defer close(p.done)
	for {
		m, err := p.conn.Recv()
		if err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(m.Data, &msg) != nil || msg.ID == nil || msg.Method == "" {
			p.got <- string(m.Data)
			continue
		}
		id := string(msg.ID)
		switch msg.Method {
		case "initialize":
			_ = p.conn.Send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"fake","version":"0"}}}`))
		case "poke":
			_ = p.conn.Send([]byte(`{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`))
			_ = p.conn.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}`))
			_ = p.conn.Send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`))
		case "slow":
			tok := string(msg.Params.Meta.ProgressToken)
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				for i := 1; i <= 2 && tok != ""; i++ {
					_ = p.conn.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":` + string(rune('0'+i)) + `}}`))
				}
				select {
				case <-p.release:
				case <-p.done:
					return
				}
				_ = p.conn.Send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"slow":` + id + `}}`))
			}()
		default:
			_ = p.conn.Send([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"method":"` + msg.Method + `"}}`))
		}
	}
}

// testHTTPServer is an HTTPServer on a loopback listener with fake peers.
type testHTTPServer struct {
	t      *testing.T
	h      *HTTPServer
	url    string
	client *http.Client

	mu    sync.Mutex
	peers map[string]*fakePeer
}

func newTestHTTPServer(t *testing.T, cfg HTTPServerConfig) *testHTTPServer {
	t.Helper()
	s := &testHTTPServer{t: t, peers: map[string]*fakePeer{}}
	cfg.Serve = func(id string, conn Conn) io.Closer {
		p := newFakePeer(conn)
		s.mu.Lock()
		s.peers[id] = p
		s.mu.Unlock()
		return p
	}
	if cfg.Retry == 0 {
		cfg.Retry = 50 * time.Millisecond
	}
	s.h = NewHTTPServer(cfg)
	ts := httptest.NewServer(s.h)
	s.url = ts.URL + "/mcp"
	s.client = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	t.Cleanup(func() {
		_ = s.h.Close()
		ts.Close()
	})
	return s
}

func (s *testHTTPServer) peer(id string) *fakePeer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peers[id]
}

// do sends one request; header holds pairs of name and value.
func (s *testHTTPServer) do(method, body string, header ...string) *http.Response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if method == http.MethodGet {
		req.Header.Set("Accept", "text/event-stream")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s: %v", method, err)
	}
	return resp
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`

// initialize opens a session and returns its id, having read the answer.
func (s *testHTTPServer) initialize() string {
	s.t.Helper()
	resp := s.do(http.MethodPost, initializeBody)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("initialize: status %d", resp.StatusCode)
	}
	id := resp.Header.Get(HeaderSessionID)
	if id == "" {
		s.t.Fatal("initialize: no Mcp-Session-Id header")
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return id
}

// serverEvent is one event as a client reads it.
type serverEvent struct {
	id, event, data string
	retry           string
}

// readServerEvent reads the next event with data or an id; it fails the test at
// the end of the stream.
func readServerEvent(t *testing.T, r *bufio.Reader) serverEvent {
	t.Helper()
	e, err := nextServerEvent(r)
	if err != nil {
		t.Fatalf("reading the SSE stream: %v", err)
	}
	return e
}

func nextServerEvent(r *bufio.Reader) (serverEvent, error) {
	var e serverEvent
	var data []string
	seen := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return e, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if seen {
				e.data = strings.Join(data, "\n")
				return e, nil
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue // a comment
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		seen = true
		switch name {
		case "id":
			e.id = value
		case "event":
			e.event = value
		case "data":
			data = append(data, value)
		case "retry":
			e.retry = value
		}
	}
}
