package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/check"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// httpProxyRig is the demo over Streamable HTTP behind the proxy, with
// the kill switch, the table, the card and every record kept.
type httpProxyRig struct {
	t        *testing.T
	url      string // the proxy's /mcp
	rec      *Recorder
	controls *Controls
	recs     *recordList
	client   *http.Client
}

type recordList struct {
	mu   sync.Mutex
	list []wire.Record
}

func (l *recordList) observe(r wire.Record) {
	l.mu.Lock()
	l.list = append(l.list, r)
	l.mu.Unlock()
}

func (l *recordList) all() []wire.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]wire.Record(nil), l.list...)
}

func startHTTPProxyRig(t *testing.T, kill KillOptions, faults Faults) *httpProxyRig {
	t.Helper()
	h := demo.HTTPHandler(io.Discard, demo.Options{}, false)
	up := httptest.NewServer(h)
	u, _ := url.Parse(up.URL)
	rig := &httpProxyRig{t: t, rec: NewRecorder(), recs: &recordList{},
		controls: &Controls{Card: NewCard("http"), Table: NewTable()},
		client:   &http.Client{Timeout: 20 * time.Second}}
	rig.rec.ObserveParsed(rig.controls.Table.ObserveParsed)
	rig.rec.ObserveParsed(rig.controls.Card.ObserveParsed)
	rig.rec.Observe(rig.recs.observe)
	px := httptest.NewServer(NewHTTPHandler(HTTPOptions{Upstream: u, Recorder: rig.rec, Controls: rig.controls, Kill: kill, Faults: faults}))
	rig.url = px.URL + "/mcp"
	t.Cleanup(func() {
		px.CloseClientConnections()
		px.Close()
		h.Close()
		up.Close()
		rig.rec.Close()
	})
	return rig
}

// postAside sends req in the background and reads its response to the
// end, as a host waiting on a call does. hangUp aborts it, as the host's
// own timeout would, and waits up to 10s for it to end.
func (rig *httpProxyRig) postAside(req *http.Request) (hangUp func()) {
	ctx, cancel := context.WithCancel(context.Background())
	rig.t.Cleanup(cancel)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := rig.client.Do(req.WithContext(ctx)); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	return func() {
		rig.t.Helper()
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			rig.t.Fatal("waited 10s for the host's request to end")
		}
	}
}

// hostSession is one host's session through the proxy.
type hostSession struct {
	rig     *httpProxyRig
	sid     string
	version string
}

// session initializes a session with request id 1, as every host does.
func (rig *httpProxyRig) session() *hostSession {
	rig.t.Helper()
	return rig.sessionAs("two-sessions", "2025-11-25")
}

// sessionAs initializes a session as host name (its clientInfo) on
// protocol version.
func (rig *httpProxyRig) sessionAs(name, version string) *hostSession {
	rig.t.Helper()
	s := &hostSession{rig: rig, version: version}
	resp := s.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"` + name + `","version":"1"}}}`)
	s.sid = resp.Header.Get(transport.HeaderSessionID)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if s.sid == "" {
		rig.t.Fatal("initialize through the proxy: no session id")
	}
	s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	return s
}

func (s *hostSession) post(body string) *http.Response {
	s.rig.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.rig.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.sid != "" {
		req.Header.Set(transport.HeaderSessionID, s.sid)
		req.Header.Set(transport.HeaderProtocolVersion, s.version)
	}
	resp, err := s.rig.client.Do(req)
	if err != nil {
		s.rig.t.Fatal(err)
	}
	return resp
}

// end ends the session, as a host that leaves does: DELETE.
func (s *hostSession) end() {
	s.rig.t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, s.rig.url, nil)
	req.Header.Set(transport.HeaderSessionID, s.sid)
	req.Header.Set(transport.HeaderProtocolVersion, s.version)
	resp, err := s.rig.client.Do(req)
	if err != nil {
		s.rig.t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// call posts a request and hands on the messages of its response, each
// as it comes, until the response ends (the channel is then closed).
func (s *hostSession) call(body string) <-chan string {
	resp := s.post(body)
	out := make(chan string, 64)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			b, _ := io.ReadAll(resp.Body)
			if len(strings.TrimSpace(string(b))) > 0 {
				out <- strings.TrimSpace(string(b))
			}
			return
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && data != "" {
				out <- data
			}
		}
	}()
	return out
}

// answerOf waits for the message of the response that answers (has no
// method), and says whether progress came before it.
func answerOf(t *testing.T, msgs <-chan string, within time.Duration, what string) (answer string, progress int) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case m, ok := <-msgs:
			if !ok {
				return "", progress
			}
			if strings.Contains(m, `"notifications/progress"`) {
				progress++
				continue
			}
			if !strings.Contains(m, `"method"`) {
				return m, progress
			}
		case <-deadline:
			t.Fatalf("waited %s for %s", within, what)
		}
	}
}

// waitRow waits for the table's row of ref from the host to be in state.
func (rig *httpProxyRig) waitRow(ref RequestRef, state State) Row {
	rig.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if r, ok := rig.controls.Table.Row(wire.Out, ref); ok && r.State == state {
			return r
		}
		if time.Now().After(deadline) {
			r, _ := rig.controls.Table.Row(wire.Out, ref)
			rig.t.Fatalf("waited 10s for request %s to be %s; its row: %+v", ref, state, r)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

const slowCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":5,"steps":1}}}`

// Two host sessions that both use ids 1 and 2 get rows of their own,
// labelled s1 and s2; the kill switch on s1's request 2 leaves s2's
// alone, and s2's own cancel reaches only its row.
func TestHTTPSessionsReusingIDsKeepTheirOwnRows(t *testing.T) {
	rig := startHTTPProxyRig(t, KillOptions{}, Faults{})
	a, b := rig.session(), rig.session()
	callA, callB := a.call(slowCall), b.call(slowCall)
	s1, s2 := RequestRef{"s1", "2"}, RequestRef{"s2", "2"}
	rig.waitRow(s1, Pending)
	rig.waitRow(s2, Pending)
	rig.waitRow(RequestRef{"s1", "1"}, Answered)
	rig.waitRow(RequestRef{"s2", "1"}, Answered)

	if rep := rig.controls.Handle(ControlRequest{Control: ControlKill, Session: "s1", ID: json.RawMessage(`2`), Reason: "test"}); rep.Error != "" || len(rep.Done) != 1 || rep.Done[0] != "s1:2" {
		t.Fatalf("kill s1:2: %+v", rep)
	}
	if ans, _ := answerOf(t, callA, 10*time.Second, "the proxy's answer to s1's killed call"); !strings.Contains(ans, "-32800") {
		t.Errorf("s1's call got %s, want the proxy's error", ans)
	}
	if r := rig.waitRow(s1, Cancelled); r.CancelledBy != CancelledByProxy {
		t.Errorf("s1:2 cancelled by %q, want the proxy", r.CancelledBy)
	}
	select {
	case m := <-callB:
		t.Fatalf("killing s1's request 2 reached s2's: it got %s", m)
	case <-time.After(300 * time.Millisecond):
	}
	if r, _ := rig.controls.Table.Row(wire.Out, s2); r.State != Pending {
		t.Fatalf("s2:2 is %s after s1:2's kill, want pending", r.State)
	}
	// s2 cancels its own request 2: only its row is the host's cancel.
	b.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"s2 stops"}}`).Body.Close()
	if r := rig.waitRow(s2, Cancelled); r.CancelledBy != CancelledByHost || r.CancelReason != "s2 stops" {
		t.Errorf("s2:2 cancelled by %q (%q), want the host's cancel", r.CancelledBy, r.CancelReason)
	}
	rig.rec.Close()
	var inits int
	for _, r := range rig.controls.Table.Rows() {
		if r.Method == "initialize" {
			inits++
		}
	}
	if inits != 2 {
		t.Errorf("%d initialize rows, want one a session", inits)
	}
	rep := rig.controls.Card.Report()
	facts := ""
	for _, l := range rep.Lines {
		facts += strings.Join(l.Facts, "\n") + "\n"
	}
	if !strings.Contains(facts, "s2:2") || !strings.Contains(facts, "s1:2") {
		t.Errorf("the card does not name the sessions' requests s1:2 and s2:2:\n%s", facts)
	}
}

// Two hosts through one proxy run: one cancels its call as its era asks,
// the other never cancels and leaves with its call pending. Each gets a
// card of its own, by its own clientInfo and era, and the grades differ.
func TestHTTPSessionsAreGradedEachOnItsOwn(t *testing.T) {
	rig := startHTTPProxyRig(t, KillOptions{}, Faults{})
	good, silent := rig.sessionAs("good-host", "2025-11-25"), rig.sessionAs("silent-host", "2025-06-18")
	callGood, callSilent := good.call(slowCall), silent.call(slowCall)
	rig.waitRow(RequestRef{"s1", "2"}, Pending)
	rig.waitRow(RequestRef{"s2", "2"}, Pending)
	good.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"Stop"}}`).Body.Close()
	rig.waitRow(RequestRef{"s1", "2"}, Cancelled)
	silent.end()
	go func() {
		for range callGood {
		}
	}()
	go func() {
		for range callSilent {
		}
	}()
	rig.rec.Close() // every record is with the card now

	rep := rig.controls.Card.Report()
	if len(rep.Sessions) != 2 {
		t.Fatalf("%d session cards, want 2: %+v", len(rep.Sessions), rep)
	}
	if s := rep.Sessions[0]; s.Session != "s1" || s.Host != "good-host 1" || s.Protocol != "2025-11-25" {
		t.Errorf("s1's card is of %s %s %s", s.Session, s.Host, s.Protocol)
	}
	if s := rep.Sessions[1]; s.Session != "s2" || s.Host != "silent-host 1" || s.Protocol != "2025-06-18" {
		t.Errorf("s2's card is of %s %s %s", s.Session, s.Host, s.Protocol)
	}
	goodForm, silentForm := sessionLine(t, rep, "s1", "Cancels in the form"), sessionLine(t, rep, "s2", "Cancels in the form")
	if goodForm.Status != check.Pass || silentForm.Status != check.Skip {
		t.Errorf("form: s1 %s %q, s2 %s %q; want pass and skip", goodForm.Status, goodForm.Facts, silentForm.Status, silentForm.Facts)
	}
	goodClose, silentClose := sessionLine(t, rep, "s1", "Cancels what is pending"), sessionLine(t, rep, "s2", "Cancels what is pending")
	if goodClose.Status != check.Skip || silentClose.Status != check.Warn ||
		!strings.Contains(strings.Join(silentClose.Facts, " "), "request s2:2 (tools/call): pending") {
		t.Errorf("on close: s1 %s %q, s2 %s %q; want skip (still there) and warn for s2:2", goodClose.Status, goodClose.Facts, silentClose.Status, silentClose.Facts)
	}
}
