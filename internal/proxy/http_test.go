package proxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/buffertest"
	"github.com/mcpoke/mcpoke/internal/transcript"
)

// httpRig is an upstream with hooks, the proxy in front of it, and the
// records the proxy made.
type httpRig struct {
	upstream *httptest.Server
	proxy    *httptest.Server
	rec      *Recorder
	table    *Table
	ndjson   *buffertest.Buffer
}

func newHTTPRig(t *testing.T, upstream http.HandlerFunc) *httpRig {
	rig := &httpRig{upstream: httptest.NewServer(upstream), rec: NewRecorder(), table: NewTable(), ndjson: &buffertest.Buffer{}}
	rig.rec.Observe(rig.table.Observe)
	rig.rec.Observe(transcript.New(rig.ndjson, time.Now()).Observe)
	u, _ := url.Parse(rig.upstream.URL)
	rig.proxy = httptest.NewServer(NewHTTPHandler(HTTPOptions{Upstream: u, Recorder: rig.rec}))
	t.Cleanup(func() {
		rig.proxy.Close()
		rig.upstream.Close()
		rig.rec.Close()
	})
	return rig
}

func TestHTTPRelaysHeadersBodiesAndStreamsEventsAtOnce(t *testing.T) {
	release := make(chan struct{})
	var gotAuth, gotSession, gotHost, gotMethod string
	rig := newHTTPRig(t, func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotSession, gotHost, gotMethod = r.Header.Get("Authorization"), r.Header.Get("Mcp-Session-Id"), r.Host, r.Header.Get("Mcp-Method")
		body, _ := io.ReadAll(r.Body)
		if !bytes.Contains(body, []byte(`"id":7`)) {
			http.Error(w, "body changed: "+string(body), 400)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Mcp-Session-Id", "sess-2")
		w.WriteHeader(200)
		fmt.Fprint(w, "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release: // the host saw the first event before the second exists
		case <-time.After(10 * time.Second):
		}
		fmt.Fprint(w, "id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[]}}\n\n")
	})
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}`
	req, _ := http.NewRequest("POST", rig.proxy.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer s3cret-token")
	req.Header.Set("Mcp-Session-Id", "sess-1")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Mcp-Session-Id") != "sess-2" {
		t.Errorf("response Mcp-Session-Id %q, want the upstream's", resp.Header.Get("Mcp-Session-Id"))
	}
	br := bufio.NewReader(resp.Body)
	first := readEvent(t, br)
	if !strings.Contains(first, "notifications/progress") {
		t.Fatalf("first event %q, want the progress", first)
	}
	close(release)
	if second := readEvent(t, br); !strings.Contains(second, `"id":7,"result"`) {
		t.Errorf("second event %q, want the result", second)
	}
	u, _ := url.Parse(rig.upstream.URL)
	if gotAuth != "Bearer s3cret-token" || gotSession != "sess-1" || gotMethod != "tools/call" || gotHost != u.Host {
		t.Errorf("upstream got Authorization %q, Mcp-Session-Id %q, Mcp-Method %q, Host %q; want them passed, Host the upstream's", gotAuth, gotSession, gotMethod, gotHost)
	}
	io.Copy(io.Discard, br)
	resp.Body.Close()
	rig.rec.Close()
	rows := rig.table.Rows()
	if len(rows) != 1 || rows[0].State != Answered || rows[0].Progress != 1 {
		t.Errorf("rows %+v, want the call answered after one progress", rows)
	}
	if s := rig.ndjson.String(); strings.Contains(s, "s3cret") || !strings.Contains(s, `"dir":"out","msg":`+body) {
		t.Errorf("transcript leaks the token or lacks the request:\n%s", s)
	}
}

func readEvent(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	var ev strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the event stream ended after %q: %v", ev.String(), err)
		}
		if line == "\n" {
			return ev.String()
		}
		ev.WriteString(line)
	}
}

func TestHTTPHostClosingAStreamClosesTheUpstreamsAtOnce(t *testing.T) {
	upstreamSawClose := make(chan time.Time, 1)
	rig := newHTTPRig(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			upstreamSawClose <- time.Now()
		case <-time.After(10 * time.Second):
		}
	})
	req, _ := http.NewRequest("POST", rig.proxy.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"_meta":{"progressToken":1}}}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readEvent(t, bufio.NewReader(resp.Body))
	closed := time.Now()
	resp.Body.Close() // the host cancels, 2026-07-28 style
	select {
	case at := <-upstreamSawClose:
		if d := at.Sub(closed); d > time.Second {
			t.Errorf("the upstream saw the close %v later, want at once", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream's stream stayed open after the host closed its own")
	}
	waitCancelledByClose(t, rig.table)
}

// A host that closes its request before the upstream's answer has begun
// (a 2026-07-28 server may send no headers until the work ends: the
// TypeScript SDK v2 client's timeout on the demo's sleep does this) has
// cancelled it as surely as one that closes a stream already open: the
// records, the table and the card say so.
func TestHTTPHostClosingARequestBeforeItsAnswerBeganIsItsCancel(t *testing.T) {
	upstreamSawClose := make(chan struct{}, 1)
	rig := newHTTPRig(t, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		select { // no headers until the work ends
		case <-r.Context().Done():
			upstreamSawClose <- struct{}{}
		case <-time.After(10 * time.Second):
		}
	})
	card, recs := NewCard("http"), &recordList{}
	rig.rec.Observe(card.Observe)
	rig.rec.Observe(recs.observe)
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sleep","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", rig.proxy.URL+"/mcp", strings.NewReader(body))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(rig.table.Rows()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("waited 10s for the call's row")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel() // the host's timeout: it aborts its fetch
	<-done
	select {
	case <-upstreamSawClose:
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream's request stayed open after the host closed its own")
	}
	waitCancelledByClose(t, rig.table)
	deadline = time.Now().Add(10 * time.Second)
	for { // the card and the list observe after the table
		form := card.Report().Lines[0]
		ev := relayEvents(recs.all(), EventStreamClosed)
		if form.Status == "pass" && len(ev) == 1 {
			if ev[0] != EventStreamClosed+"7" || len(form.Facts) != 1 || !strings.Contains(form.Facts[0], "request 7 (tools/call): closed its response stream") {
				t.Errorf("relay events %q, form line %q: want request 7's closed stream", ev, form.Facts)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("relay events %q, form line %s %q: want one closed stream of request 7, graded pass", ev, form.Status, form.Facts)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHTTPRewritesTheLegacyEndpointEvent(t *testing.T) {
	var upstreamURL string
	rig := newHTTPRig(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, "event: endpoint\ndata: %s/messages?sessionId=abc\n\n", upstreamURL)
		w.(http.Flusher).Flush()
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n")
	})
	upstreamURL = rig.upstream.URL
	resp, err := http.Get(rig.proxy.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if ev := readEvent(t, br); ev != "event: endpoint\ndata: /messages?sessionId=abc\n" {
		t.Errorf("endpoint event %q, want the upstream's origin taken out", ev)
	}
	if ev := readEvent(t, br); !strings.Contains(ev, "notifications/message") {
		t.Errorf("next event %q, want it passed as it was", ev)
	}
}

// TestHTTPEventLatency: one event every 100ms from the upstream; each
// reaches the host at once (the issue asks within 50 ms; asserted with
// room for a loaded machine, the figure logged).
func TestHTTPEventLatency(t *testing.T) {
	sent := make(chan time.Time, 10)
	rig := newHTTPRig(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for i := range 5 {
			time.Sleep(100 * time.Millisecond)
			sent <- time.Now()
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"n\":%d}}\n\n", i)
			w.(http.Flusher).Flush()
		}
	})
	resp, err := http.Get(rig.proxy.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var worst time.Duration
	for range 5 {
		readEvent(t, br)
		worst = max(worst, time.Since(<-sent))
	}
	t.Logf("slowest event through the proxy: %v", worst)
	if worst > 250*time.Millisecond {
		t.Errorf("an event took %v to pass the proxy, want it at once (under 50ms on an idle machine)", worst)
	}
}

// waitCancelledByClose waits up to 10s for table's one row to be the
// call its host cancelled by closing its stream.
func waitCancelledByClose(t *testing.T, table *Table) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rows := table.Rows()
		if len(rows) == 1 && rows[0].State == Cancelled && strings.Contains(rows[0].CancelReason, "closed") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("rows %+v, want the call cancelled by its closed stream", rows)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Labels the proxy gives are labels; anything else is not.
func TestIsSessionLabel(t *testing.T) {
	for label, want := range map[string]bool{"s1": true, "s42": true, "s": false, "s0": false, "s01": false, "x1": false, "s1a": false, "": false} {
		if got := IsSessionLabel(label); got != want {
			t.Errorf("IsSessionLabel(%q) = %v, want %v", label, got, want)
		}
	}
	var l sessionLabels
	if got := l.of("some-id"); !IsSessionLabel(got) {
		t.Errorf("the first label %q is not a label", got)
	}
}
