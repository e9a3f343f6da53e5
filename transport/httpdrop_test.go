package transport

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// A dropped stream is resumed, not given up: the POST's connection breaks
// under the reader, the transport GETs with the last event id, and the
// answer comes on the GET. The server's POST handler sees its client go.
func TestHTTPDropRequestStreamResumes(t *testing.T) {
	var mu sync.Mutex
	var lastEventID string
	postGone := make(chan struct{})
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method == http.MethodGet {
			if r.Header.Get("Last-Event-ID") == "" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			mu.Lock()
			lastEventID = r.Header.Get("Last-Event-ID")
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: s1-3\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"ok\":true}}\n\n")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: s1-1\ndata:\n\n")
		io.WriteString(w, "id: s1-2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(postGone)
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	h.Send([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call"}`))
	recvUntil(t, h, wire.KindFrame) // the progress: the stream is being read
	if _, err := h.DropRequestStream([]byte(`"7"`)); !errors.Is(err, ErrNoRequestStream) {
		t.Fatalf(`dropping the stream of "7" for request 7: %v`, err)
	}
	last, err := h.DropRequestStream([]byte(`7`))
	if err != nil || last != "s1-2" {
		t.Fatalf("DropRequestStream = %q, %v; want s1-2", last, err)
	}
	select {
	case <-postGone:
	case <-time.After(5 * time.Second):
		t.Fatal("the server's POST handler never saw its client go")
	}
	m, facts := recvUntil(t, h, wire.KindFrame)
	if !strings.Contains(string(m.Data), `"ok":true`) {
		t.Fatalf("got %s; want the answer on the resumed stream", m.Data)
	}
	mu.Lock()
	defer mu.Unlock()
	if lastEventID != "s1-2" {
		t.Errorf("resumed with Last-Event-ID %q; want s1-2", lastEventID)
	}
	all := strings.Join(facts, "\n")
	for _, want := range []string{`stream of request 7 dropped by mcpoke, as a network failure would, after event id "s1-2"`,
		`POST tools/call id 7: stream dropped by mcpoke`, `request 7: GET Last-Event-ID "s1-2" → 200 OK text/event-stream`} {
		if !strings.Contains(all, want) {
			t.Errorf("facts lack %q:\n%s", want, all)
		}
	}
	if _, err := h.DropRequestStream([]byte(`7`)); !errors.Is(err, ErrNoRequestStream) {
		t.Errorf("dropping the stream of an answered request: %v", err)
	}
}

// A stream with no event id cannot be resumed: it is left alone.
func TestHTTPDropRequestStreamNeedsAnEventID(t *testing.T) {
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	h.Send([]byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call"}`))
	recvUntil(t, h, wire.KindFrame)
	if _, err := h.DropRequestStream([]byte(`8`)); !errors.Is(err, ErrNotResumable) {
		t.Fatalf("DropRequestStream: %v; want ErrNotResumable", err)
	}
	if ok, _ := h.CloseRequestStream([]byte(`8`)); !ok {
		t.Error("the stream was not left open")
	}
}
