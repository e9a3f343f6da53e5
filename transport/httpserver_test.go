package transport

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestHTTPServerInitializeOpensASession(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	resp := s.do(http.MethodPost, initializeBody)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("initialize: status %d, content type %q; want 200 text/event-stream", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	id := resp.Header.Get(HeaderSessionID)
	if len(id) < 32 || strings.IndexFunc(id, func(r rune) bool { return r < 0x21 || r > 0x7e }) >= 0 {
		t.Fatalf("session id %q: want at least 32 visible ASCII characters", id)
	}
	br := bufio.NewReader(resp.Body)
	prime := readServerEvent(t, br)
	if prime.id == "" || prime.data != "" || prime.retry != "50" {
		t.Fatalf("first event %+v: want a priming event with an id, no data and retry 50", prime)
	}
	answer := readServerEvent(t, br)
	if !strings.Contains(answer.data, `"id":1,"result"`) || answer.id == "" || answer.id == prime.id {
		t.Fatalf("second event %+v: want the initialize response with its own id", answer)
	}
	if _, err := nextServerEvent(br); err != io.EOF {
		t.Fatalf("after the response: %v; want the stream to end", err)
	}
	if other := s.initialize(); other == id {
		t.Fatal("two initializes got the same session id")
	}
}

func TestHTTPServerAnswersJSONWhenTheClientTakesOnlyJSON(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	sid := s.initialize()
	resp := s.do(http.MethodPost, `{"jsonrpc":"2.0","id":"x","method":"tools/list"}`,
		HeaderSessionID, sid, "Accept", "application/json")
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q; want 200 application/json", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if string(body) != `{"jsonrpc":"2.0","id":"x","result":{"method":"tools/list"}}` {
		t.Fatalf("body %s", body)
	}

	batch := s.do(http.MethodPost, `[{"jsonrpc":"2.0","id":2,"method":"a"},{"jsonrpc":"2.0","method":"notifications/n"},{"jsonrpc":"2.0","id":3,"method":"b"}]`,
		HeaderSessionID, sid, "Accept", "application/json")
	defer batch.Body.Close()
	var answers []map[string]any
	if err := json.NewDecoder(batch.Body).Decode(&answers); err != nil || len(answers) != 2 {
		t.Fatalf("batch: %v %v; want an array of two responses", answers, err)
	}
}

func TestHTTPServerAcceptsNotificationsAndResponsesWith202(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	sid := s.initialize()
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"srv-1","result":{}}`,
	} {
		resp := s.do(http.MethodPost, body, HeaderSessionID, sid)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("POST %s: status %d, want 202", body, resp.StatusCode)
		}
		select {
		case got := <-s.peer(sid).got:
			if got != body {
				t.Fatalf("peer got %s, want %s", got, body)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("peer never got %s", body)
		}
	}
}

func TestHTTPServerSessionIDIsRequiredAndChecked(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	s.initialize()
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, c := range []struct {
		method, sid string
		want        int
	}{
		{http.MethodPost, "", http.StatusBadRequest},
		{http.MethodPost, "no-such-session", http.StatusNotFound},
		{http.MethodGet, "", http.StatusBadRequest},
		{http.MethodGet, "no-such-session", http.StatusNotFound},
		{http.MethodDelete, "no-such-session", http.StatusNotFound},
	} {
		resp := s.do(c.method, list, HeaderSessionID, c.sid)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want || !strings.Contains(string(body), `"error"`) {
			t.Errorf("%s with session %q: %d %s; want %d and a JSON-RPC error", c.method, c.sid, resp.StatusCode, body, c.want)
		}
	}
}

func TestHTTPServerDeleteEndsTheSession(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	sid := s.initialize()
	peer := s.peer(sid)
	resp := s.do(http.MethodDelete, "", HeaderSessionID, sid)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: status %d", resp.StatusCode)
	}
	select {
	case <-peer.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the peer's Conn did not end after DELETE")
	}
	resp = s.do(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, HeaderSessionID, sid)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("POST after DELETE: status %d, want 404", resp.StatusCode)
	}
}

func TestHTTPServerGETStreamCarriesServerMessages(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	sid := s.initialize()

	// Sent before the GET stream opens: queued for it.
	poke := s.do(http.MethodPost, `{"jsonrpc":"2.0","id":5,"method":"poke"}`, HeaderSessionID, sid)
	pokeBody, _ := io.ReadAll(poke.Body)
	poke.Body.Close()
	if strings.Contains(string(pokeBody), "ping") || !strings.Contains(string(pokeBody), `"id":5`) {
		t.Fatalf("the POST stream carried %s; want only poke's answer", pokeBody)
	}

	get := s.do(http.MethodGet, "", HeaderSessionID, sid)
	defer get.Body.Close()
	if get.StatusCode != http.StatusOK || get.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: status %d %q", get.StatusCode, get.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(get.Body)
	if e := readServerEvent(t, br); e.data != "" {
		t.Fatalf("GET stream opened with %+v; want a priming event", e)
	}
	if e := readServerEvent(t, br); !strings.Contains(e.data, `"method":"ping"`) {
		t.Fatalf("GET stream: %+v; want the server's ping", e)
	}
	if e := readServerEvent(t, br); !strings.Contains(e.data, `notifications/message`) {
		t.Fatalf("GET stream: %+v; want the server's notification", e)
	}

	second := s.do(http.MethodGet, "", HeaderSessionID, sid)
	second.Body.Close()
	if second.StatusCode != http.StatusConflict {
		t.Fatalf("a second GET stream: status %d, want 409", second.StatusCode)
	}

	// While the stream is open, server messages arrive live.
	poke = s.do(http.MethodPost, `{"jsonrpc":"2.0","id":6,"method":"poke"}`, HeaderSessionID, sid)
	_, _ = io.Copy(io.Discard, poke.Body)
	poke.Body.Close()
	if e := readServerEvent(t, br); !strings.Contains(e.data, `"method":"ping"`) {
		t.Fatalf("GET stream: %+v; want the second ping", e)
	}
}

func TestHTTPServerResumesADroppedPOSTStream(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	sid := s.initialize()
	resp := s.do(http.MethodPost, `{"jsonrpc":"2.0","id":"r1","method":"slow","params":{"_meta":{"progressToken":"t1"}}}`, HeaderSessionID, sid)
	br := bufio.NewReader(resp.Body)
	readServerEvent(t, br) // priming
	first := readServerEvent(t, br)
	if !strings.Contains(first.data, `"progress":1`) {
		t.Fatalf("first event %+v; want progress 1", first)
	}
	resp.Body.Close() // a dropped connection, not a cancel

	close(s.peer(sid).release)
	time.Sleep(50 * time.Millisecond) // let the answer be stored while nobody listens

	get := s.do(http.MethodGet, "", HeaderSessionID, sid, headerLastEventID, first.id)
	defer get.Body.Close()
	if get.StatusCode != http.StatusOK {
		t.Fatalf("resume: status %d", get.StatusCode)
	}
	br = bufio.NewReader(get.Body)
	readServerEvent(t, br) // priming
	if e := readServerEvent(t, br); !strings.Contains(e.data, `"progress":2`) {
		t.Fatalf("resumed stream: %+v; want progress 2, the event after %s", e, first.id)
	}
	if e := readServerEvent(t, br); !strings.Contains(e.data, `"id":"r1","result"`) {
		t.Fatalf("resumed stream: %+v; want the response to r1", e)
	}
	if _, err := nextServerEvent(br); err != io.EOF {
		t.Fatalf("after the response: %v; want the resumed stream to end", err)
	}

	bad := s.do(http.MethodGet, "", HeaderSessionID, sid, headerLastEventID, "999-1")
	bad.Body.Close()
	if bad.StatusCode != http.StatusBadRequest {
		t.Fatalf("resume of an unknown stream: status %d, want 400", bad.StatusCode)
	}
}

func TestHTTPServerRoutesResponsesByIDWithItsType(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	sid := s.initialize()
	number := s.do(http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"slow"}`, HeaderSessionID, sid)
	defer number.Body.Close()
	text := s.do(http.MethodPost, `{"jsonrpc":"2.0","id":"7","method":"slow"}`, HeaderSessionID, sid)
	defer text.Body.Close()
	dup := s.do(http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"slow"}`, HeaderSessionID, sid)
	dup.Body.Close()
	if dup.StatusCode != http.StatusBadRequest {
		t.Fatalf("a request id already in flight: status %d, want 400", dup.StatusCode)
	}
	close(s.peer(sid).release)
	for _, c := range []struct {
		resp *http.Response
		want string
	}{{number, `"id":7,`}, {text, `"id":"7",`}} {
		br := bufio.NewReader(c.resp.Body)
		readServerEvent(t, br)
		if e := readServerEvent(t, br); !strings.Contains(e.data, c.want) {
			t.Errorf("stream got %s; want the response with %s", e.data, c.want)
		}
	}
}

func TestHTTPServerRefusesForeignOriginsAndHosts(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	for _, c := range []struct {
		name, value string
		want        int
	}{
		{"Origin", "http://evil.example.com", http.StatusForbidden},
		{"Origin", "null", http.StatusForbidden},
		{"Host", "evil.example.com", http.StatusForbidden},
		{"Origin", "http://localhost:3000", http.StatusOK},
		{"Origin", "http://127.0.0.1", http.StatusOK},
		{"Origin", "http://[::1]:80", http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(initializeBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		if c.name == "Host" {
			req.Host = c.value
		} else {
			req.Header.Set(c.name, c.value)
		}
		resp, err := s.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s: %s: status %d, want %d", c.name, c.value, resp.StatusCode, c.want)
		}
	}
}

func TestHTTPServerChecksTheProtocolVersionHeader(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	sid := s.initialize()
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	for _, c := range []struct {
		version string
		want    int
	}{{"1999-01-01", http.StatusBadRequest}, {"2024-11-05", http.StatusBadRequest}, {"", http.StatusOK}, {"2025-06-18", http.StatusOK}} {
		resp := s.do(http.MethodPost, list, HeaderSessionID, sid, HeaderProtocolVersion, c.version)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("MCP-Protocol-Version %q: status %d, want %d", c.version, resp.StatusCode, c.want)
		}
	}
}

func TestHTTPServerRejectsWhatIsNotJSONRPC(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{MaxBody: 1 << 10})
	sid := s.initialize()
	for _, c := range []struct {
		body   string
		header []string
		want   int
	}{
		{`{not json`, nil, http.StatusBadRequest},
		{`{"jsonrpc":"2.0"}`, nil, http.StatusBadRequest},
		{`{"jsonrpc":"2.0","id":{},"method":"x"}`, nil, http.StatusBadRequest},
		{`{"jsonrpc":"2.0","id":2,"method":"x"}`, []string{"Content-Type", "text/plain"}, http.StatusUnsupportedMediaType},
		{`{"jsonrpc":"2.0","id":2,"method":"x"}`, []string{"Accept", "text/html"}, http.StatusNotAcceptable},
		{`{"jsonrpc":"2.0","id":2,"method":"x","params":{"pad":"` + strings.Repeat("x", 2<<10) + `"}}`, nil, http.StatusRequestEntityTooLarge},
	} {
		resp := s.do(http.MethodPost, c.body, append([]string{HeaderSessionID, sid}, c.header...)...)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("POST %.40s %v: status %d, want %d", c.body, c.header, resp.StatusCode, c.want)
		}
	}
	resp := s.do(http.MethodPut, "", HeaderSessionID, sid)
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("PUT: status %d, want 405", resp.StatusCode)
	}
}

func TestHTTPServerClosesARequestsConnectionAndTheClientResumes(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	sid := s.initialize()
	resp := s.do(http.MethodPost, `{"jsonrpc":"2.0","id":9,"method":"slow","params":{"_meta":{"progressToken":9}}}`, HeaderSessionID, sid)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	prime := readServerEvent(t, br)
	readServerEvent(t, br)
	readServerEvent(t, br)
	conn := s.peer(sid).conn.(RequestStreamCloser)
	if ok, err := conn.CloseRequestStream([]byte(`"9"`)); ok || err != nil {
		t.Fatalf("closing the stream of request \"9\": %v %v; want no such request", ok, err)
	}
	if ok, err := conn.CloseRequestStream([]byte(`9`)); !ok || err != nil {
		t.Fatalf("closing the stream of request 9: %v %v", ok, err)
	}
	if _, err := nextServerEvent(br); err != io.EOF {
		t.Fatalf("after CloseRequestStream: %v; want the connection to end", err)
	}
	close(s.peer(sid).release)
	get := s.do(http.MethodGet, "", HeaderSessionID, sid, headerLastEventID, prime.id)
	defer get.Body.Close()
	br = bufio.NewReader(get.Body)
	readServerEvent(t, br) // priming
	var last serverEvent
	for n := 0; n < 3; n++ {
		last = readServerEvent(t, br)
	}
	if !strings.Contains(last.data, `"id":9,"result"`) {
		t.Fatalf("resumed from the priming event, the third event is %+v; want the response after both progress", last)
	}
}

func TestHTTPServerEndsIdleSessions(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{IdleTimeout: 100 * time.Millisecond})
	sid := s.initialize()
	get := s.do(http.MethodGet, "", HeaderSessionID, sid)
	time.Sleep(300 * time.Millisecond) // an open GET stream keeps the session
	// Posted while the GET is still open: once it closes, the idle
	// timeout may pass at any moment on a loaded machine.
	resp := s.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, HeaderSessionID, sid)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST while active: status %d, want 202", resp.StatusCode)
	}
	get.Body.Close()
	select {
	case <-s.peer(sid).done:
	case <-time.After(5 * time.Second):
		t.Fatal("the idle session was not ended")
	}
	resp = s.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, HeaderSessionID, sid)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("POST to an expired session: status %d, want 404", resp.StatusCode)
	}
}

func TestHTTPServerKeepsIdleStreamsAlive(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{KeepAlive: 20 * time.Millisecond})
	sid := s.initialize()
	get := s.do(http.MethodGet, "", HeaderSessionID, sid)
	defer get.Body.Close()
	br := bufio.NewReader(get.Body)
	readServerEvent(t, br) // priming
	line, err := br.ReadString('\n')
	if err != nil || line != ": keep-alive\n" {
		t.Fatalf("an idle GET stream sent %q, %v; want a keep-alive comment", line, err)
	}
}

func TestHTTPServerLetsACancelledRequestIDBeUsedAgain(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{})
	sid := s.initialize()
	first := s.do(http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"slow"}`, HeaderSessionID, sid)
	defer first.Body.Close()
	br := bufio.NewReader(first.Body)
	readServerEvent(t, br) // priming: the request is in flight

	again := s.do(http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"slow"}`, HeaderSessionID, sid)
	again.Body.Close()
	if again.StatusCode != http.StatusBadRequest {
		t.Fatalf("id 7 again while in flight: status %d, want 400", again.StatusCode)
	}
	cancel := s.do(http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, HeaderSessionID, sid)
	cancel.Body.Close()
	// The cancelled request's stream stays open for a late answer...
	second := s.do(http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"slow"}`, HeaderSessionID, sid)
	defer second.Body.Close()
	if second.StatusCode != http.StatusOK {
		t.Fatalf("id 7 after its cancel: status %d, want 200", second.StatusCode)
	}
	// ...until its id is used again.
	if _, err := nextServerEvent(br); err != io.EOF {
		t.Fatalf("the cancelled request's stream: %v; want it ended once its id was reused", err)
	}
	close(s.peer(sid).release)
	br2 := bufio.NewReader(second.Body)
	readServerEvent(t, br2)
	if e := readServerEvent(t, br2); !strings.Contains(e.data, `"id":7,"result"`) {
		t.Fatalf("the new request 7's stream: %+v", e)
	}
}

func TestHTTPServerBoundsSessionsAndEndsThemOnClose(t *testing.T) {
	s := newTestHTTPServer(t, HTTPServerConfig{MaxSessions: 2})
	a := s.initialize()
	s.initialize()
	resp := s.do(http.MethodPost, initializeBody)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a third session: status %d, want 503", resp.StatusCode)
	}
	del := s.do(http.MethodDelete, "", HeaderSessionID, a)
	del.Body.Close()
	c := s.initialize() // room again

	get := s.do(http.MethodGet, "", HeaderSessionID, c)
	defer get.Body.Close()
	br := bufio.NewReader(get.Body)
	readServerEvent(t, br)
	closed := make(chan struct{})
	go func() { _ = s.h.Close(); close(closed) }()
	if _, err := nextServerEvent(br); err != io.EOF {
		t.Fatalf("an open GET stream after Close: %v; want it ended", err)
	}
	recvWithin(t, closed, "the server's Close to return")
	resp = s.do(http.MethodPost, initializeBody)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("initialize after Close: status %d, want 503", resp.StatusCode)
	}
}

// An ended session takes no message, though its inbound queue has room:
// a POST to it gets 404, never 202 (select chose at random between the
// queue and the session's end; CI saw 202).
func TestHTTPSessionEndedTakesNothing(t *testing.T) {
	h := NewHTTPServer(HTTPServerConfig{})
	defer h.Close()
	for i := range 200 {
		s := newHTTPSession("s", h)
		s.Close()
		if s.deliver([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil) {
			t.Fatalf("round %d: an ended session took a message", i)
		}
	}
}
