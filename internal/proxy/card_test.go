package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/check"
	"github.com/mcpoke/mcpoke/internal/wire"
)

// cardScript feeds a card records at given offsets from a start.
type cardScript struct {
	card  *Card
	start time.Time
}

func newCardScript(transport string) *cardScript {
	return &cardScript{card: NewCard(transport), start: time.Unix(1_800_000_000, 0)}
}

func (s *cardScript) host(at time.Duration, frame string) {
	s.card.Observe(wire.Record{At: s.start.Add(at), Dir: wire.Out, Kind: wire.KindFrame, Data: []byte(frame)})
}

func (s *cardScript) server(at time.Duration, frame string) {
	s.card.Observe(wire.Record{At: s.start.Add(at), Dir: wire.In, Kind: wire.KindFrame, Data: []byte(frame)})
}

func (s *cardScript) event(at time.Duration, text string) {
	s.card.Observe(wire.Record{At: s.start.Add(at), Dir: wire.In, Kind: wire.KindRelay, Data: []byte(text)})
}

// line finds the card's line whose title starts with title.
func line(t *testing.T, rep *CardReport, title string) CardLine {
	t.Helper()
	for _, l := range rep.Lines {
		if strings.HasPrefix(l.Title, title) {
			return l
		}
	}
	t.Fatalf("no card line %q in %+v", title, rep.Lines)
	return CardLine{}
}

func wantLine(t *testing.T, rep *CardReport, title string, status check.Status, facts ...string) {
	t.Helper()
	l := line(t, rep, title)
	all := strings.Join(l.Facts, "\n")
	if l.Status != status {
		t.Errorf("%s: status %s, want %s; facts:\n%s", title, l.Status, status, all)
	}
	for _, f := range facts {
		if !strings.Contains(all, f) {
			t.Errorf("%s: facts lack %q:\n%s", title, f, all)
		}
	}
}

const sec = time.Second

// A stdio host of 2025-11-25 that times out at 2 s, resets on progress,
// re-sends a call it cancelled, cancels an id it never sent and leaves
// with a call pending.
func TestCardGradesAStdioHost(t *testing.T) {
	s := newCardScript("stdio")
	s.host(0, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"claude-ai","version":"0.1.0"},"capabilities":{}}}`)
	s.server(10*time.Millisecond, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25"}}`)
	s.host(20*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// 1: no progress, cancelled on timeout at 2 s, then answered late.
	s.host(1*sec, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30},"_meta":{"progressToken":"a"}}}`)
	s.host(3*sec, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"Request timed out"}}`)
	s.server(3*sec+500*time.Millisecond, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	// 2: the same call again (new id, new token): duplicate execution.
	s.host(4*sec, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"progressToken":"b"},"arguments":{"seconds":30},"name":"sleep"}}`)
	s.server(5*sec, `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)
	// 3: progress every second for 6 s, cancelled 2 s after the last.
	s.host(10*sec, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"c"}}}`)
	for i := 1; i <= 6; i++ {
		s.server(10*sec+time.Duration(i)*sec, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"c","progress":`+string(rune('0'+i))+`}}`)
	}
	s.host(18*sec, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
	// A cancel for an id it never sent.
	s.host(19*sec, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`)
	// 4: no token, pending when the host leaves.
	s.host(20*sec, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"stubborn"}}`)
	s.event(26*sec, EventHostClosed)

	rep := s.card.Report()
	if rep.Host != "claude-ai 0.1.0" || rep.Protocol != "2025-11-25" || rep.Transport != "stdio" || rep.Requests != 5 {
		t.Errorf("header: %+v", rep)
	}
	wantLine(t, rep, "Cancels in the form", check.Pass, "request 1 (tools/call): notifications/cancelled 2s after sending it", "request 3")
	if l := line(t, rep, "Cancels in the form"); l.Level != check.Should || !strings.HasPrefix(l.Spec, "2025-11-25/lifecycle.mdx") {
		t.Errorf("stdio 2025 form line grades against %s %s", l.Level, l.Spec)
	}
	wantLine(t, rep, "Never cancels initialize", check.Pass)
	wantLine(t, rep, "Cancels only requests", check.Fail, "request 99: the host never sent it")
	wantLine(t, rep, "Effective timeout", Info, "median 2s over 1 cancel", `reason "Request timed out"`,
		"request 4 (tools/call): no answer and no cancel 6s after it was sent, past twice the timeout")
	wantLine(t, rep, "Progress resets", Info, "yes: calls with progress ran past the 2s timeout", "request 3 (tools/call): 6 progress notifications, cancelled 8s after it was sent and 2s after its last progress")
	wantLine(t, rep, "Asks for progress", Info, "3 of 4 tools/call carried a progressToken")
	wantLine(t, rep, "Late answers", Info, "request 1 (tools/call): answered 500ms after the host's cancel")
	wantLine(t, rep, "Does not send a call again", check.Warn, "request 2 repeats cancelled request 1 (tools/call) 1s after the cancel")
	wantLine(t, rep, "Cancels what is pending", check.Warn, "request 4 (tools/call): pending 6s with no cancel when the host left")

	var md, js bytes.Buffer
	if err := WriteCardMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"report card of claude-ai 0.1.0", "| Form | Cancels only requests it sent that are still in progress | MUST | **FAIL** |", "> The initialize request MUST NOT be cancelled by clients (MUST; 2025-11-25/cancellation.mdx"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := WriteCardJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var back CardReport
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Lines) != len(rep.Lines) || back.Lines[2].Status != check.Fail {
		t.Errorf("json round trip: %v %+v", err, back)
	}
}

// Over 2026-07-28 HTTP a POSTed notification is the old form: it cancels
// nothing there; a closed stream is the cancel.
func TestCardGradesAModernHTTPHost(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"go-sdk","version":"1.2"}`
	s := newCardScript("http")
	s.host(0, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep",`+meta+`}}}`)
	s.event(1*sec, EventStreamClosed+"1")
	s.host(2*sec, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep2",`+meta+`}}}`)
	s.host(3*sec, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	rep := s.card.Report()
	if rep.Host != "go-sdk 1.2" || rep.Protocol != "2026-07-28" {
		t.Errorf("header: %+v", rep)
	}
	wantLine(t, rep, "Cancels in the form", check.Fail,
		"wrong form: request 2 (tools/call): notifications/cancelled 1s after sending it: a POSTed notification is the old form and cancels nothing in 2026-07-28",
		"request 1 (tools/call): closed its response stream 1s after sending it")
	wantLine(t, rep, "Never cancels initialize", check.Skip)
	wantLine(t, rep, "Cancels what is pending", check.Skip, "the host has not left yet")

	// Both, for one request: the stream close makes it right.
	s.event(3*sec+time.Millisecond, EventStreamClosed+"2")
	wantLine(t, s.card.Report(), "Cancels in the form", check.Pass, "request 2 (tools/call): notifications/cancelled and closed its response stream")

	// A stream closed, then a notification for it at once: one cancel in
	// both forms, not a cancel of a request no longer in progress.
	s.host(4*sec, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep3",`+meta+`}}}`)
	s.event(5*sec, EventStreamClosed+"3")
	s.host(5*sec+2*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
	rep = s.card.Report()
	wantLine(t, rep, "Cancels only requests", check.Pass)
	wantLine(t, rep, "Cancels in the form", check.Pass, "request 3 (tools/call): notifications/cancelled and closed its response stream")
}

// Over 2025-era HTTP a closed stream alone is not a cancel (SHOULD).
func TestCardGradesALegacyHTTPHost(t *testing.T) {
	s := newCardScript("http")
	s.host(0, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"x"}}}`)
	s.host(1*sec, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep"}}`)
	s.event(2*sec, EventStreamClosed+"1")
	s.host(3*sec, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0}}`)
	rep := s.card.Report()
	wantLine(t, rep, "Cancels in the form", check.Warn, "wrong form: request 1 (tools/call): closed its response stream")
	wantLine(t, rep, "Never cancels initialize", check.Fail, "request 0 (initialize) cancelled 3s after it was sent")
	// A proxy kill is not the host's doing.
	s.host(4*sec, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sleep"}}`)
	s.event(5*sec, EventProxyCancelled+"5")
	s.event(6*sec, EventHostClosed)
	wantLine(t, s.card.Report(), "Cancels what is pending", check.Pass, "the proxy cancelled 1 request on the host's behalf (5); it is not graded")
}

func (s *cardScript) record(at time.Duration, sess string, dir wire.Direction, kind wire.Kind, data string) {
	s.card.Observe(wire.Record{At: s.start.Add(at), Dir: dir, Kind: kind, Data: []byte(data), Session: sess})
}

// sessionLine is session label's card line whose title starts with title.
func sessionLine(t *testing.T, rep *CardReport, label, title string) CardLine {
	t.Helper()
	for _, s := range rep.Sessions {
		if s.Session == label {
			return line(t, &CardReport{Lines: s.Lines}, title)
		}
	}
	t.Fatalf("no session %q on the card: %+v", label, rep.Sessions)
	return CardLine{}
}

// Two hosts through one HTTP proxy, on different eras: s1 cancels its
// call with a notification, as 2025-11-25 asks; s2 never cancels and
// ends its session with its call pending. Each is graded on its own:
// one card would have mixed them up under the first host's name.
func TestCardGradesEachHTTPSessionOnItsOwn(t *testing.T) {
	s := newCardScript("http")
	out := func(at time.Duration, sess, frame string) { s.record(at, sess, wire.Out, wire.KindFrame, frame) }
	in := func(at time.Duration, sess, frame string) { s.record(at, sess, wire.In, wire.KindFrame, frame) }
	out(0, "s1", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"good-host","version":"1"}}}`)
	in(10*time.Millisecond, "s1", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`)
	out(20*time.Millisecond, "s2", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"silent-host","version":"2"}}}`)
	in(30*time.Millisecond, "s2", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`)
	// Both call with id 2; s1 cancels at 2 s, s2 never does.
	out(1*sec, "s1", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep"}}`)
	out(1*sec, "s2", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","_meta":{"progressToken":7}}}`)
	out(3*sec, "s1", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"Stop"}}`)
	s.record(4*sec, "s1", wire.In, wire.KindHTTP, "DELETE /mcp → 200 OK ")
	s.record(9*sec, "s2", wire.In, wire.KindHTTP, "DELETE /mcp → 200 OK ")

	rep := s.card.Report()
	if len(rep.Sessions) != 2 {
		t.Fatalf("%d session cards, want 2: %+v", len(rep.Sessions), rep)
	}
	s1, s2 := rep.Sessions[0], rep.Sessions[1]
	if s1.Session != "s1" || s1.Host != "good-host 1" || s1.Protocol != "2025-11-25" || s1.Requests != 2 {
		t.Errorf("s1's card: %s %s %s %d", s1.Session, s1.Host, s1.Protocol, s1.Requests)
	}
	if s2.Session != "s2" || s2.Host != "silent-host 2" || s2.Protocol != "2025-06-18" || s2.Requests != 2 {
		t.Errorf("s2's card: %s %s %s %d", s2.Session, s2.Host, s2.Protocol, s2.Requests)
	}
	for _, c := range []struct {
		label, title string
		status       check.Status
		fact         string
	}{
		{"s1", "Cancels in the form", check.Pass, "request s1:2 (tools/call): notifications/cancelled 2s after sending it (POSTed)"},
		{"s2", "Cancels in the form", check.Skip, "no cancel seen"},
		{"s1", "Effective timeout", Info, "median 2s over 1 cancel"},
		{"s2", "Effective timeout", check.Skip, "no request without progress was cancelled"},
		{"s1", "Asks for progress", Info, "0 of 1 tools/call carried a progressToken"},
		{"s2", "Asks for progress", Info, "1 of 1 tools/call carried a progressToken"},
		{"s1", "Cancels what is pending", check.Pass, "nothing was pending when the host left"},
		{"s2", "Cancels what is pending", check.Warn, "request s2:2 (tools/call): pending 8s with no cancel when the host left"},
	} {
		l := sessionLine(t, rep, c.label, c.title)
		if all := strings.Join(l.Facts, "\n"); l.Status != c.status || !strings.Contains(all, c.fact) {
			t.Errorf("%s %s: %s, want %s with %q; facts:\n%s", c.label, c.title, l.Status, c.status, c.fact, all)
		}
	}
	if got := sessionLine(t, rep, "s2", "Cancels what is pending").Facts; strings.Contains(strings.Join(got, " "), "s1:") {
		t.Errorf("s2's card speaks of s1's requests: %q", got)
	}

	// The top level sums them up: both hosts named, each line at its
	// worst, every fact after its session's label.
	if rep.Host != "2 host sessions: good-host 1 (s1), silent-host 2 (s2)" || rep.Protocol != "2025-11-25, 2025-06-18" || rep.Requests != 4 {
		t.Errorf("summary header: %q %q %d", rep.Host, rep.Protocol, rep.Requests)
	}
	wantLine(t, rep, "Cancels in the form", check.Pass, "s1: request s1:2", "s2: no cancel seen")
	wantLine(t, rep, "Cancels what is pending", check.Warn, "s1: nothing was pending", "s2: request s2:2 (tools/call): pending 8s")

	var md, js bytes.Buffer
	if err := WriteCardMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"### mcpoke proxy: report card of 2 host sessions\n",
		"| s1 | good-host 1 | `2025-11-25` | 2 | 0 | 0 | 5 |",
		"| s2 | silent-host 2 | `2025-06-18` | 2 | 0 | 1 | 1 |",
		"#### Session s1: report card of good-host 1\n\nProtocol `2025-11-25` over http, 2 requests from the host.",
		"#### Session s2: report card of silent-host 2\n",
		"##### On close: Cancels what is pending before it leaves: WARN",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if err := WriteCardJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Host     string `json:"host"`
		Sessions []struct {
			Session, Host, Protocol string
			Lines                   []CardLine
		} `json:"sessions"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Sessions) != 2 || back.Sessions[1].Host != "silent-host 2" ||
		back.Sessions[1].Lines[9].Status != check.Warn || back.Sessions[0].Lines[9].Status != check.Pass {
		t.Errorf("json: %v %+v\n%s", err, back, js.String())
	}

	// One session's card alone, as the TUI asks for the selected row's.
	one, ok := s.card.ReportSession("s2")
	if !ok || one.Host != "silent-host 2" || one.Session != "s2" || len(one.Sessions) != 0 || len(one.OtherSessions) != 1 || one.OtherSessions[0] != "s1" {
		t.Fatalf("s2's card alone: %v %+v", ok, one)
	}
	wantLine(t, one, "Cancels what is pending", check.Warn, "request s2:2")
	if _, ok := s.card.ReportSession("s9"); ok {
		t.Error("a card for a session never seen")
	}
}

// One HTTP session keeps the card's shape of one host: no sessions list.
func TestCardOfOneHTTPSessionKeepsItsShape(t *testing.T) {
	s := newCardScript("http")
	s.record(0, "s1", wire.Out, wire.KindFrame, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"only","version":"1"}}}`)
	rep := s.card.Report()
	if rep.Host != "only 1" || rep.Protocol != "2025-11-25" || rep.Session != "s1" || len(rep.Sessions) != 0 || len(rep.Lines) != 10 {
		t.Errorf("one session's card: %+v", rep)
	}
	var md bytes.Buffer
	WriteCardMarkdown(&md, rep)
	if !strings.HasPrefix(md.String(), "### mcpoke proxy: report card of only 1\n\nProtocol `2025-11-25` over http, 1 request from the host.") {
		t.Errorf("markdown of one session:\n%s", md.String())
	}
}

// Progress that crosses the host's cancel on the wire (the server sent
// it before the cancel reached it) is not progress the host's clock saw:
// the card counts what came before the cancel, and never says a cancel
// came a negative time after the last progress.
func TestCardProgressAfterTheCancelIsNotBeforeIt(t *testing.T) {
	s := newCardScript("stdio")
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ts2-host","version":"2.4.0"}`
	s.host(0, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30,"steps":1},`+meta+`}}}`)
	s.host(400*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"SdkError: Request timed out"}}`)
	s.host(sec, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":30,"steps":300},`+meta+`,"progressToken":2}}}`)
	s.server(sec+100*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}`)
	s.server(sec+200*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":2}}`)
	s.host(sec+300*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user pressed stop"}}`)
	s.server(sec+302*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":3}}`)
	wantLine(t, s.card.Report(), "Progress resets", Info,
		"request 2 (tools/call): 2 progress notifications, cancelled 300ms after it was sent and 100ms after its last progress")
}

// The TypeScript SDK v2's client: a plain call times out at 500 ms with
// a cancel; a call whose progress reset its timeout passes its
// maxTotalTimeout and is given up with no cancel at all; a Stop cancels
// a third call 100 ms in. The Stop says nothing of what progress does
// to the timeout, and the call given up silently is no evidence that
// the timeout is the maximum: the card must not say "no" and pass the
// maximum.
func TestCardAStopIsNoEvidenceThatProgressDoesNotResetTheTimeout(t *testing.T) {
	s := newCardScript("stdio")
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ts2-host","version":"2.4.0"}`
	s.host(0, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"steps":1},`+meta+`}}}`)
	s.host(500*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"SdkError: Request timed out"}}`)
	s.host(sec, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"steps":300},`+meta+`,"progressToken":2}}}`)
	for i := 1; i <= 18; i++ {
		s.server(sec+time.Duration(i)*100*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}`)
	}
	s.host(3*sec, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"steps":299},`+meta+`,"progressToken":3}}}`)
	s.server(3*sec+100*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1}}`)
	s.host(3*sec+103*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"the user pressed stop"}}`)
	s.event(3*sec+500*time.Millisecond, EventHostClosed)
	rep := s.card.Report()
	wantLine(t, rep, "Progress resets", Info,
		"no call with progress was cancelled at or after the 500ms timeout",
		"request 3 (tools/call): 1 progress notification, cancelled 103ms after it was sent and 3ms after its last progress: before the 500ms timeout, a stop rather than a timeout",
		"request 2 (tools/call): 18 progress notifications and no cancel 2.5s after it was sent: progress reset the timeout, or the host stopped waiting without a cancel")
	wantLine(t, rep, "A maximum timeout", check.Skip, "needs a call with progress that timed out", "if the host gave up on them, it did not say so")
	wantLine(t, rep, "Cancels what is pending", check.Warn, "request 2 (tools/call): pending 2.5s with no cancel when the host left")
}

// A call cancelled at its timeout despite its progress says progress
// does not reset the clock.
func TestCardProgressThatDoesNotResetTheTimeout(t *testing.T) {
	s := newCardScript("stdio")
	s.host(0, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep"}}`)
	s.host(sec, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	s.host(2*sec, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","_meta":{"progressToken":2}}}`)
	s.server(2*sec+500*time.Millisecond, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":2,"progress":1}}`)
	s.host(3*sec, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	rep := s.card.Report()
	wantLine(t, rep, "Progress resets", Info, "no: calls with progress were cancelled at the 1s timeout")
	wantLine(t, rep, "A maximum timeout", check.Pass, "progress does not extend the timeout")
}
