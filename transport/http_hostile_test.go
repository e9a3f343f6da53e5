package transport

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// A stream that trickles bytes and never ends an event: nothing is
// delivered, memory stays put, and Close ends it at once.
func TestHTTPSlowlorisStreamEndsOnClose(t *testing.T) {
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: ")
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
				io.WriteString(w, "x")
				w.(http.Flusher).Flush()
			}
		}
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	h.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`))
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	h.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Close took %s", d)
	}
}

// A GET that never answers is bounded by the stream header timeout.
func TestHTTPSlowGetHeadersTimeOut(t *testing.T) {
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, func(o *HTTPOptions) { o.StreamHeaderTimeout = 200 * time.Millisecond })
	initialize(t, h)
	_, facts := recvUntilFact(t, h, "no response headers within 200ms")
	_ = facts
}

func recvUntilFact(t *testing.T, c Conn, sub string) (Message, []string) {
	t.Helper()
	var facts []string
	for {
		m, err := recvTimeout(c, 5*time.Second)
		if err != nil {
			t.Fatalf("waiting for a fact with %q: %v (facts %q)", sub, err, facts)
		}
		if m.Kind == wire.KindHTTP {
			facts = append(facts, string(m.Data))
			if strings.Contains(string(m.Data), sub) {
				return m, facts
			}
		}
	}
}

// A 128 MB event is reported oversize and skipped with memory bounded by
// the frame limit, not the event.
func TestHTTPHugeSSEEventBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 128 MB")
	}
	const size = 128 << 20
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: big\ndata: ")
		buf := []byte(strings.Repeat("x", 256<<10))
		for n := 0; n < size; n += len(buf) {
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
		io.WriteString(w, "\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n")
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, func(o *HTTPOptions) { o.MaxFrameSize = 1 << 20 })
	initialize(t, h)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`))
	var m Message
	for m.Kind != wire.KindOversize {
		var err error
		// Generous: the race detector makes 128 MB slow to scan.
		if m, err = recvTimeout(h, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if m.Size != size {
		t.Errorf("oversize %d, want %d", m.Size, size)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 64<<20 {
		t.Errorf("heap grew by %d MB for a 128 MB event", grew>>20)
	}
	if f, _ := recvUntil(t, h, wire.KindFrame); !strings.Contains(string(f.Data), `"id":2`) {
		t.Errorf("the answer after the huge event: %s", f.Data)
	}
}

// Server requests arrive on the GET stream opened after initialize.
func TestHTTPGetStreamCarriesServerRequests(t *testing.T) {
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: g1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"roots/list\"}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	m, _ := recvUntil(t, h, wire.KindFrame)
	if !strings.Contains(string(m.Data), "roots/list") {
		t.Fatalf("got %s", m.Data)
	}
}

// A credential in the URL's query never reaches an error.
func TestHTTPErrorsRedactURL(t *testing.T) {
	h := dialTest(t, "http://127.0.0.1:1/mcp?api_key=hunter2", nil)
	err := h.Send([]byte(initFrame))
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v", err)
	}
}
