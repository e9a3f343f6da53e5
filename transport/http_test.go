package transport

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

const (
	initFrame     = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	initResult    = `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`
	initializedNt = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// dialTest dials srv with short timeouts and closes the connection at the
// end of the test.
func dialTest(t *testing.T, url string, mod func(*HTTPOptions)) *HTTP {
	t.Helper()
	o := HTTPOptions{URL: url, DefaultRetry: 50 * time.Millisecond, StreamHeaderTimeout: 2 * time.Second, ConnectTimeout: 2 * time.Second}
	if mod != nil {
		mod(&o)
	}
	h, err := DialHTTP(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// recvUntil takes messages until one of kind arrives and returns it with
// the HTTP facts seen on the way.
func recvUntil(t *testing.T, c Conn, kind wire.Kind) (Message, []string) {
	t.Helper()
	var facts []string
	for {
		m, err := recvTimeout(c, 5*time.Second)
		if err != nil {
			t.Fatalf("waiting for %s: %v (facts %q)", kind, err, facts)
		}
		if m.Kind == wire.KindHTTP {
			facts = append(facts, string(m.Data))
		}
		if m.Kind == kind {
			return m, facts
		}
	}
}

func recvTimeout(c Conn, d time.Duration) (Message, error) {
	type res struct {
		m   Message
		err error
	}
	ch := make(chan res, 1)
	go func() { m, err := c.Recv(); ch <- res{m, err} }()
	select {
	case r := <-ch:
		return r.m, r.err
	case <-time.After(d):
		return Message{}, errors.New("timed out")
	}
}

// mcpHandler is a small Streamable HTTP server: initialize gives a session
// id; other requests are answered by answer.
func mcpHandler(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, body string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusOK)
		case r.Method == http.MethodGet:
			answer(w, r, "")
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "sess-1")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, initResult)
		case r.Header.Get("Mcp-Session-Id") != "sess-1":
			http.Error(w, "no session", http.StatusBadRequest)
		case !strings.Contains(string(body), `"id"`):
			w.WriteHeader(http.StatusAccepted)
		default:
			answer(w, r, string(body))
		}
	})
}

func initialize(t *testing.T, h *HTTP) {
	t.Helper()
	if err := h.Send([]byte(initFrame)); err != nil {
		t.Fatal(err)
	}
	recvUntil(t, h, wire.KindFrame)
	if err := h.Send([]byte(initializedNt)); err != nil {
		t.Fatal(err)
	}
}

// Close ends the server's session with a DELETE that carries its id, and
// the DELETE reaches the server before Close returns.
func TestHTTPCloseDeletesTheSession(t *testing.T) {
	deleted := make(chan string, 1)
	inner := mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		w.WriteHeader(http.StatusMethodNotAllowed)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			select {
			case deleted <- r.Header.Get("Mcp-Session-Id"):
			default:
			}
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	closed := make(chan struct{})
	go func() { h.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return within 5s")
	}
	select {
	case sid := <-deleted:
		if sid != "sess-1" {
			t.Errorf("DELETE for session %q; want sess-1", sid)
		}
	default:
		t.Fatal("Close returned and no DELETE reached the server")
	}
}

func TestHTTPJSONAndSSEAnswers(t *testing.T) {
	var gotVersion, gotAccept string
	var mu sync.Mutex
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		mu.Lock()
		gotVersion, gotAccept = r.Header.Get("MCP-Protocol-Version"), r.Header.Get("Accept")
		mu.Unlock()
		if strings.Contains(body, `"id":2`) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": hello\n\nid: e1\ndata:\n\nid: e2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\nid: e3\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"3\",\"result\":{}}\n\n")
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	h.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	m, _ := recvUntil(t, h, wire.KindFrame)
	if !strings.Contains(string(m.Data), `"id":2`) {
		t.Fatalf("got %s", m.Data)
	}
	h.Send([]byte(`{"jsonrpc":"2.0","id":"3","method":"tools/call"}`))
	// The progress came on request "3"'s own stream: it says so.
	if pm, _ := recvUntil(t, h, wire.KindFrame); string(pm.ID) != `"3"` {
		t.Errorf("a frame on request 3's stream has ID %q", pm.ID)
	}
	m, facts := recvUntil(t, h, wire.KindFrame)
	if !strings.Contains(string(m.Data), `"id":"3"`) {
		t.Fatalf("got %s", m.Data)
	}
	all := strings.Join(facts, "\n")
	for _, want := range []string{`event id "e3"`} {
		if !strings.Contains(all, want) {
			t.Errorf("facts lack %q: %s", want, all)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if gotVersion != "2025-06-18" || gotAccept != "application/json, text/event-stream" {
		t.Errorf("headers: version %q accept %q", gotVersion, gotAccept)
	}
	if h.SessionID() != "sess-1" {
		t.Errorf("session id %q", h.SessionID())
	}
}

func TestHTTPRequestErrors(t *testing.T) {
	cases := []struct {
		name  string
		serve func(w http.ResponseWriter)
		want  string
	}{
		{"500", func(w http.ResponseWriter) { http.Error(w, "boom", 500) }, "HTTP 500 Internal Server Error: boom"},
		{"wrong content type", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>")
		}, `Content-Type "text/html"`},
		{"202 to a request", func(w http.ResponseWriter) { w.WriteHeader(202) }, "no response can come"},
		{"stream ends mid-event", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":")
		}, "before answering it"},
		{"events with no data", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: x\n\n: c\n\nretry: 10\n\n")
		}, "before answering it"},
		{"JSON body that is no answer", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":99,"result":{}}`)
		}, "does not answer it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
				if r.Method == http.MethodGet {
					w.WriteHeader(http.StatusMethodNotAllowed)
					return
				}
				c.serve(w)
			}))
			t.Cleanup(srv.Close)
			h := dialTest(t, srv.URL, nil)
			initialize(t, h)
			if err := h.Send([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`)); err != nil {
				t.Fatal(err)
			}
			m, _ := recvUntil(t, h, wire.KindRequestError)
			if string(m.ID) != "7" || !strings.Contains(string(m.Data), c.want) {
				t.Fatalf("request error for %s: %s; want %q", m.ID, m.Data, c.want)
			}
		})
	}
}

func TestHTTPSessionExpired(t *testing.T) {
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	h.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	for {
		m, err := recvTimeout(h, 5*time.Second)
		if err != nil {
			if !errors.Is(err, ErrSessionExpired) || !strings.Contains(err.Error(), "sess-1") {
				t.Fatalf("err = %v", err)
			}
			return
		}
		_ = m
	}
}

func TestHTTPSendDoesNotWaitForHeaders(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	}))
	t.Cleanup(srv.Close)
	defer close(release)
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	start := time.Now()
	if err := h.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Send took %s", d)
	}
}

func TestHTTPConnectRefusedFailsFast(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	h := dialTest(t, url, nil)
	if err := h.Send([]byte(initFrame)); err == nil || !strings.Contains(err.Error(), "POST initialize") {
		t.Fatalf("err = %v", err)
	}
}

func TestHTTPResumesWithLastEventIDAfterRetry(t *testing.T) {
	var mu sync.Mutex
	var lastEventID string
	var dropped, resumed time.Time
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.Method == http.MethodGet {
			if r.Header.Get("Last-Event-ID") == "" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			mu.Lock()
			lastEventID, resumed = r.Header.Get("Last-Event-ID"), time.Now()
			mu.Unlock()
			io.WriteString(w, "id: s1-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"ok\":true}}\n\n")
			return
		}
		io.WriteString(w, "id: s1-1\nretry: 300\ndata:\n\n")
		mu.Lock()
		dropped = time.Now()
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	h.Send([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call"}`))
	m, facts := recvUntil(t, h, wire.KindFrame)
	if !strings.Contains(string(m.Data), `"ok":true`) {
		t.Fatalf("got %s", m.Data)
	}
	mu.Lock()
	defer mu.Unlock()
	if lastEventID != "s1-1" {
		t.Errorf("Last-Event-ID %q", lastEventID)
	}
	if d := resumed.Sub(dropped); d < 300*time.Millisecond || d > 2*time.Second {
		t.Errorf("resumed %s after the drop; the server asked for 300ms", d)
	}
	if !strings.Contains(strings.Join(facts, "\n"), `reconnecting in 300ms with Last-Event-ID "s1-1"`) {
		t.Errorf("facts: %q", facts)
	}
}

func TestHTTPOversizeJSONBounded(t *testing.T) {
	const size = 3 << 30
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(size))
		buf := []byte(strings.Repeat(" ", 64<<10))
		for n := 0; n < size; n += len(buf) {
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, func(o *HTTPOptions) { o.MaxFrameSize = 1 << 20 })
	initialize(t, h)
	h.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`))
	m, _ := recvUntil(t, h, wire.KindOversize)
	if m.Size != size {
		t.Errorf("size %d", m.Size)
	}
	e, _ := recvUntil(t, h, wire.KindRequestError)
	if !strings.Contains(string(e.Data), "over the limit") {
		t.Errorf("request error %s", e.Data)
	}
}

func TestHTTPCloseRequestStream(t *testing.T) {
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	h.Send([]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call"}`))
	if ok, _ := h.CloseRequestStream([]byte(`"4"`)); ok {
		t.Fatal(`closed the stream of "4" for request 4`)
	}
	time.Sleep(50 * time.Millisecond)
	if ok, _ := h.CloseRequestStream([]byte(`4`)); !ok {
		t.Fatal("request 4 has no stream to close")
	}
	_, facts := recvUntil(t, h, wire.KindHTTP)
	_ = facts
}

func TestLegacySSE(t *testing.T) {
	events := make(chan string, 4)
	mux := http.NewServeMux()
	mux.HandleFunc("/sse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: /messages?session=abc\n\n")
		w.(http.Flusher).Flush()
		for {
			select {
			case e := <-events:
				io.WriteString(w, "event: message\ndata: "+e+"\n\n")
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("/messages", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Query().Get("session") != "abc" {
			http.Error(w, "bad session", 400)
			return
		}
		if strings.Contains(string(body), `"fail"`) {
			http.Error(w, "nope", 500)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		if strings.Contains(string(body), `"id"`) {
			events <- `{"jsonrpc":"2.0","id":1,"result":{}}`
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	l, err := DialSSE(HTTPOptions{URL: srv.URL + "/sse", ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Send([]byte(initFrame))
	recvUntil(t, l, wire.KindFrame)
	l.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"fail"}`))
	if m, _ := recvUntil(t, l, wire.KindRequestError); string(m.ID) != "2" || !strings.Contains(string(m.Data), "500") {
		t.Fatalf("request error %s %s", m.ID, m.Data)
	}
}

func TestLegacySSENoEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": slow\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	start := time.Now()
	_, err := DialSSE(HTTPOptions{URL: srv.URL, ConnectTimeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "no endpoint event within 300ms") || !errors.Is(err, ErrNoSSEEndpoint) {
		t.Fatalf("err = %v; want no endpoint event within 300ms, as ErrNoSSEEndpoint", err)
	}
	if strings.Contains(err.Error(), "--") {
		t.Errorf("the transport's error names a flag: %v", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatalf("took %s", time.Since(start))
	}
}

func TestLegacyEndpointOtherOriginRefused(t *testing.T) {
	if _, err := resolveEndpoint("http://127.0.0.1:1/sse", "http://evil.example/messages"); err == nil {
		t.Fatal("another origin was accepted")
	}
	// Same host and port, another scheme: an https client must not be
	// sent to plain http, where its frames (and token) travel in clear.
	for base, ref := range map[string]string{
		"https://127.0.0.1:8443/sse": "http://127.0.0.1:8443/messages",
		"https://example.test/sse":   "http://example.test:443/messages",
		"http://127.0.0.1:1/sse":     "https://127.0.0.1:1/messages",
	} {
		if u, err := resolveEndpoint(base, ref); err == nil || !strings.Contains(err.Error(), "another origin") {
			t.Errorf("endpoint %s from %s: got %q, %v; want refused as another origin", ref, base, u, err)
		}
	}
	if u, err := resolveEndpoint("https://127.0.0.1:8443/sse", "//127.0.0.1:8443/messages"); err != nil || u != "https://127.0.0.1:8443/messages" {
		t.Errorf("a scheme-relative endpoint: got %q, %v; want it on https", u, err)
	}
	if u, err := resolveEndpoint("http://127.0.0.1:1/a/sse", "messages?s=1"); err != nil || u != "http://127.0.0.1:1/a/messages?s=1" {
		t.Fatalf("got %q, %v", u, err)
	}
}

func TestHTTPFallsBackToLegacy(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: endpoint\ndata: /messages\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("/messages", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(202) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL+"/", func(o *HTTPOptions) { o.FallbackToSSE = true })
	h.Send([]byte(initFrame))
	deadline := time.Now().Add(5 * time.Second)
	for h.Kind() != "sse" && time.Now().Before(deadline) {
		recvTimeout(h, 100*time.Millisecond)
	}
	if h.Kind() != "sse" {
		t.Fatal("no fallback to legacy SSE")
	}
}

func TestRedaction(t *testing.T) {
	for _, n := range []string{"Authorization", "Cookie", "X-Api-Key", "Proxy-Authorization", "X-Auth-Token", "client_secret"} {
		if !IsCredentialHeader(n) {
			t.Errorf("%s not a credential", n)
		}
	}
	if IsCredentialHeader("Mcp-Session-Id") || IsCredentialHeader("Accept") {
		t.Error("plain header taken for a credential")
	}
	if got := RedactURL("https://u:p@h/x?api_key=s&q=1"); strings.Contains(got, "p@") || strings.Contains(got, "=s") {
		t.Errorf("RedactURL: %s", got)
	}
}

// The go-sdk's Streamable HTTP handler writes a priming event and, when
// the connection drops, keeps the answer for a resume. A chunked body cut
// between events reads as io.ErrUnexpectedEOF: the wire log said the
// stream "ended in the middle of an event" although the priming event was
// whole. It broke between events, and mcpoke resumes from that event.
func TestHTTPStreamCutBetweenEventsSaysBroke(t *testing.T) {
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.Method == http.MethodGet {
			if r.Header.Get("Last-Event-ID") != "s_0" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			io.WriteString(w, "id: s_1\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"ok\":true}}\n\n")
			return
		}
		io.WriteString(w, "id: s_0\nevent: prime\nretry: 10\ndata:\n\n")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // drop the connection mid-body
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	h.Send([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call"}`))
	m, facts := recvUntil(t, h, wire.KindFrame)
	if !strings.Contains(string(m.Data), `"ok":true`) {
		t.Fatalf("got %s", m.Data)
	}
	all := strings.Join(facts, "\n")
	if strings.Contains(all, "middle of an event") || !strings.Contains(all, "stream broke: unexpected EOF") {
		t.Errorf("facts: %q", facts)
	}
	if !strings.Contains(all, `Last-Event-ID "s_0"`) {
		t.Errorf("no resume from the priming event: %q", facts)
	}
}
