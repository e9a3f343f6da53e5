package transport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// fakeAuthorizer hands out "Bearer t<N>", a new one per challenge.
type fakeAuthorizer struct {
	mu         sync.Mutex
	n          int
	challenges []int
	give       bool // answer challenges with a retry
}

func (f *fakeAuthorizer) Authorization(context.Context) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		return ""
	}
	return "Bearer t" + string(rune('0'+f.n))
}

func (f *fakeAuthorizer) Challenged(_ context.Context, sent string, resp *http.Response) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.challenges = append(f.challenges, resp.StatusCode)
	if !f.give {
		return false, nil
	}
	f.n++
	return true, nil
}

// TestAuthorizedRetryInSameSession: a 401 on a request after initialize
// is answered by the authorizer and the same request goes again, in the
// same session; every later POST, notifications too, carries the token.
func TestAuthorizedRetryInSameSession(t *testing.T) {
	var mu sync.Mutex
	var seen []string // "method auth session"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		method := "other"
		for _, m := range []string{"initialize", "notifications/initialized", "tools/list", "notifications/progress"} {
			if strings.Contains(string(body), `"`+m+`"`) {
				method = m
			}
		}
		mu.Lock()
		seen = append(seen, method+" "+r.Header.Get("Authorization")+" "+r.Header.Get("Mcp-Session-Id"))
		mu.Unlock()
		if method == "initialize" {
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, initResult)
			return
		}
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="x"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if method == "tools/list" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	fa := &fakeAuthorizer{give: true}
	h := dialTest(t, srv.URL, func(o *HTTPOptions) { o.Auth = fa })
	if err := h.Send([]byte(initFrame)); err != nil {
		t.Fatal(err)
	}
	recvUntil(t, h, wire.KindFrame)
	if err := h.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)); err != nil {
		t.Fatal(err)
	}
	m, _ := recvUntil(t, h, wire.KindFrame)
	if !strings.Contains(string(m.Data), `"tools"`) {
		t.Fatalf("tools/list answer %s; want the result after the retry", m.Data)
	}
	if err := h.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`)); err != nil {
		t.Fatal(err)
	}
	// Send returns once the body is written; the handler runs after.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n >= 4 {
			break
		}
	}
	h.Close()
	mu.Lock()
	defer mu.Unlock()
	want := []string{"initialize  ", "tools/list  s1", "tools/list Bearer t1 s1", "notifications/progress Bearer t1 s1"}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("requests\n %q\nwant\n %q", seen, want)
	}
}

// TestAuthorizerDeclines: with no retry, the 401 fails the request.
func TestAuthorizerDeclines(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	fa := &fakeAuthorizer{}
	h := dialTest(t, srv.URL, func(o *HTTPOptions) { o.Auth = fa })
	if err := h.Send([]byte(initFrame)); err != nil {
		t.Fatal(err)
	}
	m, _ := recvUntil(t, h, wire.KindRequestError)
	if !strings.Contains(string(m.Data), "401") {
		t.Errorf("answer %s; want the 401 as the request's error", m.Data)
	}
	if len(fa.challenges) != 1 {
		t.Errorf("%d challenges; want 1", len(fa.challenges))
	}
}

// A request sent again after a login goes on a new connection: a login
// may take a person minutes, and a server closes idle connections
// meanwhile (Node after 5 s); a POST on one it closed fails with a
// connection reset, which Go's client does not retry.
func TestAuthorizedRetryOnAFreshConnection(t *testing.T) {
	var mu sync.Mutex
	var addrs []string // RemoteAddr of each tools/list
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if strings.Contains(string(body), `"initialize"`) {
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, initResult)
			return
		}
		if !strings.Contains(string(body), `"tools/list"`) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		mu.Lock()
		addrs = append(addrs, r.RemoteAddr)
		mu.Unlock()
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="x"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`)
	}))
	defer srv.Close()
	h := dialTest(t, srv.URL, func(o *HTTPOptions) { o.Auth = &fakeAuthorizer{give: true} })
	if err := h.Send([]byte(initFrame)); err != nil {
		t.Fatal(err)
	}
	recvUntil(t, h, wire.KindFrame)
	if err := h.Send([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)); err != nil {
		t.Fatal(err)
	}
	if m, _ := recvUntil(t, h, wire.KindFrame); !strings.Contains(string(m.Data), `"tools"`) {
		t.Fatalf("tools/list answer %s", m.Data)
	}
	h.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(addrs) != 2 || addrs[0] == addrs[1] {
		t.Fatalf("tools/list came from %v: the retry after the login reused the connection", addrs)
	}
}
