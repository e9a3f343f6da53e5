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

// expiringServer is a Streamable HTTP server whose session expires
// mid-session. Request 2 gets a response stream that stays open and
// chatters (progress every few milliseconds, never an answer), so that a
// busy stream cannot hide the expiry; other requests are answered by
// other. Once expire is called, every request on the session gets 404.
type expiringServer struct {
	mu        sync.Mutex
	expiredAt time.Time
}

func (s *expiringServer) expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.expiredAt.IsZero() {
		s.expiredAt = time.Now()
	}
}

func (s *expiringServer) expired() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.expiredAt, !s.expiredAt.IsZero()
}

func (s *expiringServer) start(t *testing.T, other func(w http.ResponseWriter, r *http.Request, body string)) *httptest.Server {
	srv := httptest.NewServer(mcpHandler(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if _, gone := s.expired(); gone {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		if !strings.Contains(body, `"id":2`) {
			other(w, r, body)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 1; ; i++ {
			fmt.Fprintf(w, "id: a%d\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":2,\"progress\":%d}}\n\n", i, i)
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			default:
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// recvUntilError takes messages until Recv fails and returns the error,
// when it came, and the HTTP facts seen on the way.
func recvUntilError(t *testing.T, c Conn) (time.Time, []string, error) {
	t.Helper()
	var facts []string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		m, err := recvTimeout(c, time.Until(deadline))
		if err != nil {
			return time.Now(), facts, err
		}
		if m.Kind == wire.KindHTTP {
			facts = append(facts, string(m.Data))
		}
	}
	t.Fatalf("Recv still delivers after 5s; facts %q", facts)
	return time.Time{}, nil, nil
}

// checkExpired wants the session-expired error, soon after the server
// expired the session although request 2's stream is open and busy: the
// session fails every pending request with it.
func checkExpired(t *testing.T, s *expiringServer, err error, at time.Time, facts []string, fact string) {
	t.Helper()
	if !errors.Is(err, ErrSessionExpired) || !strings.Contains(err.Error(), "sess-1") || !strings.Contains(err.Error(), "reconnect") {
		t.Fatalf("Recv ended with %v; want the session-expired error for sess-1", err)
	}
	expiredAt, _ := s.expired()
	if d := at.Sub(expiredAt); d > time.Second {
		t.Errorf("Recv failed %s after the session expired; request 2's busy stream held the error back", d)
	}
	if !strings.Contains(strings.Join(facts, "\n"), fact) {
		t.Errorf("no fact %q in %q", fact, facts)
	}
}

// The session expires while request 2's stream is open: request 3's
// stream drops, and its resumption (GET with Last-Event-ID) gets 404.
func TestHTTPSessionExpiresOnAStreamResumedMidSession(t *testing.T) {
	s := &expiringServer{}
	srv := s.start(t, func(w http.ResponseWriter, r *http.Request, body string) {
		switch {
		case r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "":
			s.expire()
			http.Error(w, "session not found", http.StatusNotFound)
		case r.Method == http.MethodGet:
			w.WriteHeader(http.StatusMethodNotAllowed)
		default: // request 3: a priming event, then the stream drops
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "id: b1\nretry: 50\ndata:\n\n")
		}
	})
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	h.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":2}}}`))
	recvUntil(t, h, wire.KindFrame) // its stream is open
	h.Send([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call"}`))
	at, facts, err := recvUntilError(t, h)
	checkExpired(t, s, err, at, facts, `request 3: GET Last-Event-ID "b1" → 404 Not Found`)
}

// The session expires while request 2's stream is open, and the server
// answers the next POST with 404.
func TestHTTPSessionExpiresOnALaterPOST(t *testing.T) {
	s := &expiringServer{}
	srv := s.start(t, func(w http.ResponseWriter, r *http.Request, body string) {
		if r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		s.expire()
		http.Error(w, "session not found", http.StatusNotFound)
	})
	h := dialTest(t, srv.URL, nil)
	initialize(t, h)
	h.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":2}}}`))
	recvUntil(t, h, wire.KindFrame)
	h.Send([]byte(`{"jsonrpc":"2.0","id":4,"method":"ping"}`))
	at, facts, err := recvUntilError(t, h)
	checkExpired(t, s, err, at, facts, "POST ping id 4 → 404 Not Found")
}
