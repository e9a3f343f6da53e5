package demo

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/transport"
)

// httpDemo is the demo server behind the Streamable HTTP transport, as
// `mcpoke demo-server --http` runs it, reached with a plain net/http client.
type httpDemo struct {
	t      *testing.T
	url    string
	client *http.Client
	log    *buffertest.Buffer
	sid    string
}

func startHTTP(t *testing.T) *httpDemo {
	t.Helper()
	log := &buffertest.Buffer{}
	h := transport.NewHTTPServer(transport.HTTPServerConfig{
		Serve: func(id string, conn transport.Conn) io.Closer {
			return ServeConn(id, conn, log, Options{ConformanceTools: true})
		},
	})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { _ = h.Close(); ts.Close() })
	d := &httpDemo{t: t, url: ts.URL, log: log,
		client: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: hangGuard}}
	resp := d.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`)
	d.sid = resp.Header.Get(transport.HeaderSessionID)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if d.sid == "" {
		t.Fatal("initialize over HTTP: no session id")
	}
	d.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	return d
}

func (d *httpDemo) post(body string) *http.Response {
	d.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, d.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if d.sid != "" {
		req.Header.Set(transport.HeaderSessionID, d.sid)
		req.Header.Set(transport.HeaderProtocolVersion, "2025-11-25")
	}
	resp, err := d.client.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	return resp
}

// dataLines returns the data of each SSE event on r as they come.
func dataLines(r io.Reader) <-chan string {
	out := make(chan string, 256)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "" {
				out <- data
			}
		}
	}()
	return out
}

func TestHTTPSleepSendsProgressOnItsStream(t *testing.T) {
	d := startHTTP(t)
	resp := d.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	list, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(list), `"name":"sleep"`) {
		t.Fatalf("tools/list over HTTP: %s", list)
	}

	resp = d.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":0.05,"steps":5},"_meta":{"progressToken":"p2"}}}`)
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("tools/call answered with %q, want an SSE stream", resp.Header.Get("Content-Type"))
	}
	var progress int
	var last string
	for data := range dataLines(resp.Body) {
		if strings.Contains(data, `"progressToken":"p2"`) {
			progress++
		}
		last = data
	}
	if progress != 5 || !strings.Contains(last, `"id":2,"result"`) || !strings.Contains(last, "slept") {
		t.Fatalf("got %d progress notifications and last %s; want 5, then the result", progress, last)
	}
}

func TestHTTPCancelStopsSleepAndIsLogged(t *testing.T) {
	d := startHTTP(t)
	resp := d.post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":60,"steps":600},"_meta":{"progressToken":3}}}`)
	defer resp.Body.Close()
	events := dataLines(resp.Body)
	select {
	case <-events:
	case <-time.After(hangGuard):
		t.Fatal("no progress from sleep")
	}
	cancel := d.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"test"}}`)
	cancel.Body.Close()
	if cancel.StatusCode != http.StatusAccepted {
		t.Fatalf("POST notifications/cancelled: status %d, want 202", cancel.StatusCode)
	}
	deadline := time.Now().Add(hangGuard)
	for !strings.Contains(d.log.String(), "sleep stopped") {
		if time.Now().After(deadline) {
			t.Fatalf("sleep did not stop; log:\n%s", d.log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	log := d.log.String()
	if !strings.Contains(log, "cancel received") || !strings.Contains(log, "reason=test") || !strings.Contains(log, "session="+d.sid[:8]) {
		t.Fatalf("the demo's log does not show the cancel with its session:\n%s", log)
	}
}

func TestHTTPConformanceReconnectionResumesWithLastEventID(t *testing.T) {
	d := startHTTP(t)
	resp := d.post(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_reconnection","arguments":{}}}`)
	var lastID string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			lastID = id
		}
		if strings.Contains(sc.Text(), `"result"`) {
			t.Fatalf("the answer came on the first connection: %s", sc.Text())
		}
	}
	resp.Body.Close()
	if lastID == "" {
		t.Fatal("the stream closed before any event id: nothing to resume from")
	}
	req, _ := http.NewRequest(http.MethodGet, d.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(transport.HeaderSessionID, d.sid)
	req.Header.Set("Last-Event-ID", lastID)
	get, err := d.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	for data := range dataLines(get.Body) {
		if strings.Contains(data, `"id":4,"result"`) && strings.Contains(data, "Reconnection test completed") {
			return
		}
	}
	t.Fatal("the resumed stream ended without the answer")
}

func TestConformanceToolsOnlyWhenAsked(t *testing.T) {
	for _, t2 := range allTools() {
		if strings.HasPrefix(t2.Name, "test_") {
			t.Fatalf("%s is in the demo's default tools", t2.Name)
		}
	}
	if n := len(prepareTools(conformanceTools())); n != 6 {
		t.Fatalf("%d conformance tools, want 6", n)
	}
}
