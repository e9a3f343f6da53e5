//go:build linux

package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// The gate puts an injected line between whole lines of a chunked
// stream, never inside one, and passes the rest as it came.
func TestGateInjectsBetweenWholeLines(t *testing.T) {
	var out bytes.Buffer
	g := newLineGate(func(p []byte) error { out.Write(p); return nil })
	g.pass([]byte(`{"a":1}` + "\n" + `{"b":`))
	g.inject([]byte("INJECTED\n"))
	g.pass([]byte(`2}`))
	g.pass([]byte("\n" + `{"c":3}` + "\n"))
	g.inject([]byte("NOW\n"))
	want := `{"a":1}` + "\n" + `{"b":2}` + "\nINJECTED\n" + `{"c":3}` + "\nNOW\n"
	if out.String() != want {
		t.Errorf("gate wrote %q, want %q", out.String(), want)
	}
}

// A filtering gate drops only the lines it is told to and passes every
// other byte unchanged, however the stream is cut.
func TestGateDropsOnlyWhatItIsTold(t *testing.T) {
	stream := []byte("line one\r\n" + `{"id":7,"result":{}}` + "\n\n  spaced \xff\n" + `{"id":8}` + "\nlast no newline")
	for cut := 1; cut < len(stream); cut++ {
		var out bytes.Buffer
		g := newLineGate(func(p []byte) error { out.Write(p); return nil })
		g.active = func() bool { return true }
		g.drop = func(line []byte) bool { return bytes.HasPrefix(line, []byte(`{"id":7`)) }
		for p := stream; len(p) > 0; {
			n := min(cut, len(p))
			g.pass(p[:n])
			p = p[n:]
		}
		g.pass(nil)
		want := "line one\r\n\n  spaced \xff\n" + `{"id":8}` + "\n"
		if !bytes.Equal(out.Bytes(), []byte(want)) {
			t.Fatalf("cut %d: gate wrote %q, want %q (the last line without a newline is held: the stream has not ended it)", cut, out.String(), want)
		}
	}
}

// killRelay runs the demo behind a relay with the kill switch.
type killRelay struct {
	host     *scriptedHost
	controls *Controls
	table    *Table
	recs     *records
	done     chan struct{}
	inW      *io.PipeWriter
	rec      *Recorder
}

func startKillRelay(t *testing.T, opts KillOptions) *killRelay {
	return startFaultRelay(t, opts, Faults{})
}

func startFaultRelay(t *testing.T, opts KillOptions, faults Faults) *killRelay {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	k := &killRelay{host: &scriptedHost{t: t, in: inW, lines: make(chan string, 1024)}, table: NewTable(),
		recs: &records{}, done: make(chan struct{}), inW: inW, rec: NewRecorder()}
	k.controls = &Controls{Table: k.table, Card: NewCard("stdio")}
	k.rec.Observe(k.table.Observe)
	k.rec.Observe(k.controls.Card.Observe)
	k.rec.Observe(k.recs.observe)
	go func() {
		defer close(k.host.lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			k.host.lines <- sc.Text()
		}
	}()
	go func() {
		defer close(k.done)
		_, err := RunStdio(context.Background(), StdioOptions{
			Command: os.Args[0], Env: []string{fakeServerEnv + "=demo"},
			HostIn: inR, HostOut: outW, HostErr: io.Discard,
			CloseGrace: 200 * time.Millisecond, Recorder: k.rec, Controls: k.controls, Kill: opts, Faults: faults,
		})
		if err != nil {
			t.Errorf("RunStdio: %v", err)
		}
		outW.Close()
	}()
	k.host.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"scripted","version":"1"}}}`)
	k.host.waitFor(`"id":1`)
	k.host.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return k
}

// waitRow waits until the table has the host's request id pending.
func (k *killRelay) waitPending(t *testing.T, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if r, ok := k.table.Row(wire.Out, RequestRef{ID: id}); ok && r.State == Pending {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("request %s never showed pending in the table", id)
}

func (k *killRelay) end(t *testing.T) {
	k.inW.Close()
	select {
	case <-k.done:
	case <-time.After(testDeadline):
		t.Fatal("the relay did not end after the host closed its input")
	}
	k.rec.Close()
}

// collect reads the host's lines until one holds want, and returns them.
func (h *scriptedHost) collect(want string) []string {
	h.t.Helper()
	var got []string
	deadline := time.After(10 * time.Second)
	for {
		select {
		case line, ok := <-h.lines:
			if !ok {
				h.t.Fatalf("the server's output ended before a line with %s; got %q", want, got)
			}
			got = append(got, line)
			if strings.Contains(line, want) {
				return got
			}
		case <-deadline:
			h.t.Fatalf("no line with %s within 10s; got %q", want, got)
		}
	}
}

func relayEvents(recs []wire.Record, prefix string) []string {
	var out []string
	for _, r := range recs {
		if r.Kind == wire.KindRelay && strings.HasPrefix(string(r.Data), prefix) {
			out = append(out, string(r.Data))
		}
	}
	return out
}

// --on-kill error: the server gets notifications/cancelled with the
// host's own id (a string stays a string), the host gets an error saying
// the proxy cancelled it, and the stubborn tool's late answer is dropped.
func TestKillSwitchCancelsAndAnswersTheHost(t *testing.T) {
	k := startKillRelay(t, KillOptions{})
	k.host.send(`{"jsonrpc":"2.0","id":"k1","method":"tools/call","params":{"name":"stubborn","arguments":{"seconds":0.3}}}`)
	k.waitPending(t, `"k1"`)
	rep := k.controls.Handle(ControlRequest{Control: ControlKill, ID: json.RawMessage(`"k1"`), Reason: "from the test"})
	if rep.Error != "" || len(rep.Done) != 1 || rep.Done[0] != `"k1"` {
		t.Fatalf("kill reply %+v", rep)
	}
	lines := k.host.collect(`"id":"k1"`)
	last := lines[len(lines)-1]
	var ans struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	json.Unmarshal([]byte(last), &ans)
	if string(ans.ID) != `"k1"` || ans.Error.Code != KillErrorCode || !strings.Contains(ans.Error.Message, "mcpoke proxy cancelled this request") || !strings.Contains(ans.Error.Message, "from the test") {
		t.Errorf("the host got %s, want the proxy's error for \"k1\"", last)
	}
	// The stubborn tool answers 0.3 s after; echo after 0.6 s shows the
	// host did not get it.
	time.Sleep(600 * time.Millisecond)
	k.host.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"}}}`)
	for _, l := range k.host.collect(`"id":9`) {
		if strings.Contains(l, `"k1"`) {
			t.Errorf("the host got a second answer for k1 (the late one was to be dropped): %s", l)
		}
	}
	if again := k.controls.Handle(ControlRequest{Control: ControlKill, ID: json.RawMessage(`"k1"`)}); !strings.Contains(again.Error, "not pending") {
		t.Errorf("a second kill of k1: %+v, want not pending", again)
	}
	k.end(t)
	recs := k.recs.all()
	sent := relayEvents(recs, EventProxySentServer)
	if len(sent) != 1 || !strings.Contains(sent[0], `"requestId":"k1"`) || !strings.Contains(sent[0], `"reason":"from the test"`) {
		t.Errorf("the cancel sent to the server: %q", sent)
	}
	if d := relayEvents(recs, EventLateDropped); len(d) != 1 || !strings.HasSuffix(d[0], `"k1"`) {
		t.Errorf("late answer dropped events: %q (the stubborn tool answers after a cancel)", d)
	}
	r, _ := k.table.Row(wire.Out, RequestRef{ID: `"k1"`})
	if r.CancelledBy != CancelledByProxy {
		t.Errorf("row k1 cancelled by %q, want proxy", r.CancelledBy)
	}
	if l := line(t, k.controls.Card.Report(), "Cancels what is pending"); !strings.Contains(strings.Join(l.Facts, " "), `the proxy cancelled 1 request on the host's behalf ("k1"); it is not graded`) {
		t.Errorf("the card does not set the proxy's kill apart: %q", l.Facts)
	}
}

// --on-kill silent --forward-late: the host gets no word from the proxy,
// and the server's late answer reaches it.
func TestKillSwitchSilentForwardsLate(t *testing.T) {
	k := startKillRelay(t, KillOptions{Silent: true, ForwardLate: true})
	k.host.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"stubborn","arguments":{"seconds":0.3}}}`)
	k.waitPending(t, "7")
	if rep := k.controls.Handle(ControlRequest{Control: ControlKillAll}); rep.Error != "" || len(rep.Done) != 1 || rep.Done[0] != "7" {
		t.Fatalf("kill-all reply %+v", rep)
	}
	lines := k.host.collect(`"id":7`)
	// The stubborn tool answers after a cancel, with a result or, when
	// the cancel caught it early, an error of its own.
	if last := lines[len(lines)-1]; strings.Contains(last, "-32800") || strings.Contains(last, "mcpoke proxy") {
		t.Errorf("the host got %s, want the server's late answer", last)
	}
	k.end(t)
	if a := relayEvents(k.recs.all(), EventProxyAnswered); len(a) != 0 {
		t.Errorf("silent, yet the proxy answered the host: %q", a)
	}
	if s := relayEvents(k.recs.all(), EventProxySentServer); len(s) != 1 || !strings.Contains(s[0], `"requestId":7`) {
		t.Errorf("the cancel sent to the server: %q (7 must stay a number)", s)
	}
}
