package transport

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSSEServerEndpointEventAndRoundTrip(t *testing.T) {
	var mu sync.Mutex
	peers := map[string]*fakePeer{}
	h := NewSSEServer(SSEServerConfig{Serve: func(id string, conn Conn) io.Closer {
		p := newFakePeer(conn)
		mu.Lock()
		peers[id] = p
		mu.Unlock()
		return p
	}})
	mux := http.NewServeMux()
	mux.Handle("/sse", h)
	mux.Handle("/messages", h)
	ts := httptest.NewServer(mux)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	t.Cleanup(func() { _ = h.Close(); ts.Close() })

	get, err := client.Get(ts.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	if get.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /sse: content type %q", get.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(get.Body)
	endpoint := readServerEvent(t, br)
	if endpoint.event != "endpoint" || !strings.HasPrefix(endpoint.data, "/messages?sessionId=") {
		t.Fatalf("first event %+v; want endpoint /messages?sessionId=…", endpoint)
	}

	post := func(url, body string) int {
		resp, err := client.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(ts.URL+endpoint.data, initializeBody); code != http.StatusAccepted {
		t.Fatalf("POST initialize: status %d, want 202", code)
	}
	if e := readServerEvent(t, br); e.event != "message" || !strings.Contains(e.data, `"id":1,"result"`) {
		t.Fatalf("stream: %+v; want the initialize response as a message event", e)
	}
	if code := post(ts.URL+endpoint.data, `{"jsonrpc":"2.0","id":2,"method":"poke"}`); code != http.StatusAccepted {
		t.Fatalf("POST poke: status %d", code)
	}
	for _, want := range []string{`"method":"ping"`, `notifications/message`, `"id":2,"result"`} {
		if e := readServerEvent(t, br); !strings.Contains(e.data, want) {
			t.Fatalf("stream: %+v; want %s", e, want)
		}
	}

	if code := post(ts.URL+"/messages?sessionId=nope", initializeBody); code != http.StatusNotFound {
		t.Fatalf("POST to an unknown session: status %d, want 404", code)
	}
	if code := post(ts.URL+"/messages", initializeBody); code != http.StatusBadRequest {
		t.Fatalf("POST without sessionId: status %d, want 400", code)
	}

	// Closing the stream ends the session.
	id := strings.TrimPrefix(endpoint.data, "/messages?sessionId=")
	mu.Lock()
	peer := peers[id]
	mu.Unlock()
	get.Body.Close()
	select {
	case <-peer.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the session lived on after its stream closed")
	}
	if code := post(ts.URL+endpoint.data, initializeBody); code != http.StatusNotFound {
		t.Fatalf("POST after the stream closed: status %d, want 404", code)
	}
}

func TestSSEServerRefusesForeignOrigins(t *testing.T) {
	h := NewSSEServer(SSEServerConfig{Serve: func(_ string, conn Conn) io.Closer { return newFakePeer(conn) }})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { _ = h.Close(); ts.Close() })
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/sse", nil)
	req.Header.Set("Origin", "https://evil.example.com")
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, want 403", resp.StatusCode)
	}
}
