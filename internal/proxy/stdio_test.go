//go:build linux

package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// testDeadline bounds every relay a test runs.
const testDeadline = 20 * time.Second

// records collects what a Recorder hands its observers.
type records struct {
	mu   sync.Mutex
	list []wire.Record
}

func (r *records) observe(rec wire.Record) {
	r.mu.Lock()
	r.list = append(r.list, rec)
	r.mu.Unlock()
}

func (r *records) all() []wire.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]wire.Record(nil), r.list...)
}

// relayResult is what a host saw of one relay.
type relayResult struct {
	out, err []byte
	code     int
	records  []wire.Record
}

// runRelay relays hostIn to a fake server in mode and back, and fails
// the test if the relay outlives testDeadline.
func runRelay(t *testing.T, mode string, env []string, hostIn io.Reader, hostOut io.Writer) relayResult {
	return runRelayGrace(t, mode, env, hostIn, hostOut, 5*time.Second)
}

// runRelayGrace is runRelay with the server's grace after the host leaves.
func runRelayGrace(t *testing.T, mode string, env []string, hostIn io.Reader, hostOut io.Writer, grace time.Duration) relayResult {
	t.Helper()
	var out, errb bytes.Buffer
	if hostOut == nil {
		hostOut = &out
	}
	rec := NewRecorder()
	var got records
	rec.Observe(got.observe)
	done := make(chan relayResult, 1)
	go func() {
		code, err := RunStdio(context.Background(), StdioOptions{
			Command: os.Args[0], Env: append(env, fakeServerEnv+"="+mode),
			HostIn: hostIn, HostOut: hostOut, HostErr: &errb,
			CloseGrace: grace, Recorder: rec,
		})
		if err != nil {
			t.Errorf("RunStdio: %v", err)
		}
		rec.Close()
		done <- relayResult{out: out.Bytes(), err: errb.Bytes(), code: code, records: got.all()}
	}()
	select {
	case r := <-done:
		return r
	case <-time.After(testDeadline):
		t.Fatalf("the relay to a %q server did not end within %v", mode, testDeadline)
	}
	panic("unreachable")
}

// garbage is traffic no well-behaved peer sends: random bytes, terminal
// escapes, invalid UTF-8, CRLF, blank lines, a 5 MiB line, frames in odd
// spellings, and a last line without its newline.
func garbage(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}` + "\n")
	b.WriteString(`{ "id" : "1" , "jsonrpc":"2.0", "result":{"a":"\u00e9\ud83d\ude00"}}` + "\r\n")
	b.WriteString("\n\n   \n")
	b.WriteString("Listening on stdio \x1b]0;owned\x07 \x1b[2J\n")
	b.WriteString(`{"jsonrpc":"2.0","id":2,"result":{"t":"` + "\xff\xfe" + `"}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","id":3,` + "\n")
	b.WriteString("{" + strings.Repeat("x", 5<<20) + "}\n")
	for range 2000 {
		n := r.IntN(200)
		for range n {
			b.WriteByte(byte(r.UintN(256)))
		}
		b.WriteByte('\n')
	}
	b.WriteString(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`) // no newline
	return b.Bytes()
}

func TestRelayPassesHostBytesUnchanged(t *testing.T) {
	in := garbage(1)
	r := runRelay(t, "echo", nil, bytes.NewReader(in), nil)
	if !bytes.Equal(r.out, in) {
		t.Fatalf("the host got %d bytes back through an echo server, want the %d it sent, unchanged (first difference at byte %d)",
			len(r.out), len(in), firstDiff(r.out, in))
	}
	if r.code != 0 {
		t.Errorf("exit status %d, want the echo server's 0", r.code)
	}
	// Both directions recorded the same lines.
	var out, in2 []wire.Record
	for _, rec := range r.records {
		switch {
		case rec.Kind == wire.KindRelay || rec.Kind == wire.KindStderr:
		case rec.Dir == wire.Out:
			out = append(out, rec)
		default:
			in2 = append(in2, rec)
		}
	}
	if len(out) != len(in2) || len(out) < 2000 {
		t.Fatalf("%d lines recorded from the host and %d from the server, want the same number, over 2000", len(out), len(in2))
	}
	checkKinds(t, out)
}

func TestRelayPassesServerBytesUnchanged(t *testing.T) {
	dir := t.TempDir()
	stdout, stderr := garbage(2), garbage(3)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := []string{fakeStdoutFile + "=" + write("out", stdout), fakeStderrFile + "=" + write("err", stderr), fakeCode + "=7"}
	r := runRelay(t, "spew", env, idleHost(t), nil)
	if !bytes.Equal(r.out, stdout) {
		t.Errorf("the host got %d bytes of the server's stdout, want its %d unchanged (first difference at byte %d)",
			len(r.out), len(stdout), firstDiff(r.out, stdout))
	}
	if !bytes.Equal(r.err, stderr) {
		t.Errorf("the proxy's stderr got %d bytes, want the server's %d unchanged (first difference at byte %d)",
			len(r.err), len(stderr), firstDiff(r.err, stderr))
	}
	if r.code != 7 {
		t.Errorf("exit status %d, want the server's 7", r.code)
	}
	var in []wire.Record
	stderrLines := 0
	for _, rec := range r.records {
		switch {
		case rec.Kind == wire.KindStderr:
			stderrLines++
		case rec.Dir == wire.In && rec.Kind != wire.KindRelay:
			in = append(in, rec)
		}
	}
	checkKinds(t, in)
	if stderrLines < 2000 {
		t.Errorf("%d stderr lines recorded, want over 2000", stderrLines)
	}
	last := r.records[len(r.records)-1]
	if last.Kind != wire.KindRelay || string(last.Data) != "server exited with status 7" {
		t.Errorf("last record %v %q, want the relay's word that the server exited with status 7", last.Kind, last.Data)
	}
}

// checkKinds checks how the lines of garbage() were recorded.
func checkKinds(t *testing.T, recs []wire.Record) {
	t.Helper()
	want := []struct {
		kind wire.Kind
		data string
	}{
		{wire.KindFrame, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`},
		{wire.KindFrame, `{ "id" : "1" , "jsonrpc":"2.0", "result":{"a":"\u00e9\ud83d\ude00"}}`},
		{wire.KindNoise, "Listening on stdio \x1b]0;owned\x07 \x1b[2J"},
		{wire.KindMalformed, `{"jsonrpc":"2.0","id":2,"result":{"t":"` + "\xff\xfe" + `"}}`},
		{wire.KindMalformed, `{"jsonrpc":"2.0","id":3,`},
	}
	for i, w := range want {
		if recs[i].Kind != w.kind || string(recs[i].Data) != w.data {
			t.Errorf("record %d: %v %q, want %v %q", i, recs[i].Kind, recs[i].Data, w.kind, w.data)
		}
	}
	big := recs[len(want)]
	if big.Kind != wire.KindOversize || big.Size != 5<<20+2 || len(big.Data) > headKeep+tailKeep+8 {
		t.Errorf("the 5 MiB line: %v of size %d with %d bytes kept, want oversize of %d with at most head and tail kept",
			big.Kind, big.Size, len(big.Data), 5<<20+2)
	}
	last := recs[len(recs)-1]
	if last.Kind != wire.KindFrame || !bytes.Contains(last.Data, []byte("notifications/cancelled")) {
		t.Errorf("last record %v %q, want the cancel that ended without a newline", last.Kind, last.Data)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// idleHost is a host that neither writes nor closes until the test ends.
func idleHost(t *testing.T) io.Reader {
	r, w := io.Pipe()
	t.Cleanup(func() { w.Close() })
	return r
}

func TestHostClosingStopsAStubbornServerAndItsFamily(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	hostR, hostW := io.Pipe()
	ready := &signalWriter{ch: make(chan struct{})}
	go func() {
		select {
		case <-ready.ch:
		case <-time.After(testDeadline):
		}
		hostW.Close() // the host goes
	}()
	start := time.Now()
	r := runRelayGrace(t, "stubborn", []string{fakePidFile + "=" + pids}, hostR, ready, 100*time.Millisecond)
	if r.code != 128+9 {
		t.Errorf("exit status %d, want 137 (the server was killed with SIGKILL)", r.code)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopping took %v, want about two graces of 100ms", took)
	}
	b, err := os.ReadFile(pids)
	if err != nil {
		t.Fatalf("the stubborn server's child pid: %v", err)
	}
	child, _ := strconv.Atoi(string(b))
	if alive(child) {
		t.Errorf("the server's child %d outlived the proxy", child)
	}
	var events []string
	for _, rec := range r.records {
		if rec.Kind == wire.KindRelay {
			events = append(events, string(rec.Data))
		}
	}
	if len(events) != 2 || events[0] != EventHostClosed || !strings.Contains(events[1], "SIGKILL") {
		t.Errorf("relay events %q, want the host closing, then the server killed by SIGKILL", events)
	}
}

func TestServerKilledBySignalGivesItsStatus(t *testing.T) {
	r := runRelay(t, "selfkill", nil, idleHost(t), nil)
	if r.code != 128+9 {
		t.Errorf("exit status %d, want 137", r.code)
	}
}

// sigtermGrace is the grace of the tests that want a server ended by
// SIGTERM: a server's last chance after SIGTERM is the same grace, and
// on a loaded machine 50 ms was once too short for a Go program to run
// its SIGTERM handler (it got SIGKILL, 137).
const sigtermGrace = time.Second

func TestCancelStopsTheServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, err := RunStdio(ctx, StdioOptions{
		Command: os.Args[0], Env: []string{fakeServerEnv + "=sleep"},
		HostIn: idleHost(t), HostOut: io.Discard, HostErr: io.Discard,
		CloseGrace: sigtermGrace,
	})
	if err != nil || code != 128+15 {
		t.Errorf("RunStdio = %d, %v; want 143 (SIGTERM after the grace), no error", code, err)
	}
}

func TestHostThatStopsReadingDoesNotBlockTheServer(t *testing.T) {
	dir := t.TempDir()
	stdout := bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`+"\n"), 100_000)
	p := filepath.Join(dir, "out")
	os.WriteFile(p, stdout, 0o600)
	r := runRelay(t, "spew", []string{fakeStdoutFile + "=" + p}, idleHost(t), failingWriter{})
	if r.code != 0 {
		t.Errorf("exit status %d, want 0", r.code)
	}
	n := 0
	for _, rec := range r.records {
		if rec.Kind == wire.KindFrame {
			n++
		}
		if rec.Kind == wire.KindRelay && string(rec.Data) == EventHostGone {
			n += 1_000_000
		}
	}
	if n != 1_100_000 {
		t.Errorf("records: %d frames plus a million per host-gone event, want 100000 frames and one event", n)
	}
}

func TestServerThatStopsReadingDoesNotBlockTheHost(t *testing.T) {
	in := bytes.Repeat([]byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`+"\n"), 100_000)
	hostR, hostW := io.Pipe()
	wrote := make(chan error, 1)
	go func() {
		_, err := hostW.Write(in)
		wrote <- err
		// Then the host stays, as hosts do; the test ends the server.
	}()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case err := <-wrote:
			if err != nil {
				t.Errorf("host write: %v", err)
			}
		case <-time.After(testDeadline):
			t.Errorf("the host's writes blocked on a server that does not read")
		}
		cancel()
	}()
	code, err := RunStdio(ctx, StdioOptions{
		Command: os.Args[0], Env: []string{fakeServerEnv + "=deaf"},
		HostIn: hostR, HostOut: io.Discard, HostErr: io.Discard, CloseGrace: sigtermGrace,
	})
	hostW.Close()
	if err != nil || code != 128+15 {
		t.Errorf("RunStdio = %d, %v; want 143", code, err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// signalWriter closes ch at its first write.
type signalWriter struct {
	once sync.Once
	ch   chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.ch) })
	return len(p), nil
}

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

// A server's last words after the host closed its input reach the host
// whole, even when the host reads slowly: closing the server does not
// cut its output.
func TestLastWordsAfterTheHostClosedPassWhole(t *testing.T) {
	var out bytes.Buffer
	r := runRelay(t, "lastwords", nil, bytes.NewReader(nil), slowWriter{&out})
	if !bytes.Equal(out.Bytes(), lastWords) || r.code != 0 {
		t.Errorf("the host got %d of the server's %d last bytes, exit %d", out.Len(), len(lastWords), r.code)
	}
}

// slowWriter is a host that takes its time reading.
type slowWriter struct{ w io.Writer }

func (s slowWriter) Write(p []byte) (int, error) {
	time.Sleep(2 * time.Millisecond)
	return s.w.Write(p)
}

// closeOnLine closes the host's input as soon as a whole line reaches it:
// a host that leaves the moment it has its answer.
type closeOnLine struct {
	in   *io.PipeWriter
	once sync.Once
}

func (c *closeOnLine) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, '\n') >= 0 {
		c.once.Do(func() { c.in.Close() })
	}
	return len(p), nil
}

// The records keep cause before effect although the two directions are
// recorded on two goroutines: a request before the line that answers it,
// and that line before the host, which had it, leaves.
func TestRecordsKeepCauseBeforeEffect(t *testing.T) {
	for round := range 30 {
		inR, inW := io.Pipe()
		go io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
		r := runRelay(t, "echo", nil, inR, &closeOnLine{in: inW})
		var order []string
		for _, rec := range r.records {
			switch {
			case rec.Kind == wire.KindFrame && rec.Dir == wire.Out:
				order = append(order, "request")
			case rec.Kind == wire.KindFrame:
				order = append(order, "answer")
			case rec.Kind == wire.KindRelay && string(rec.Data) == EventHostClosed:
				order = append(order, "host left")
			}
		}
		if strings.Join(order, ", ") != "request, answer, host left" {
			t.Fatalf("round %d: records in the order %q", round, order)
		}
	}
}

// replyOnLine is a host that answers the first line it gets at once (as a
// host cancels on a progress it just read), then leaves.
type replyOnLine struct {
	in    *io.PipeWriter
	reply string
	once  sync.Once
}

func (c *replyOnLine) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, '\n') >= 0 {
		c.once.Do(func() {
			io.WriteString(c.in, c.reply)
			c.in.Close()
		})
	}
	return len(p), nil
}

// What the host sends on reading a server's line is recorded after that
// line: the card counts a call's progress only up to the host's cancel,
// so a cancel recorded before the progress that prompted it would lose
// it (the TS SDK v2 host's Stop-after-first-progress did).
func TestRecordsKeepServerLineBeforeTheHostsReply(t *testing.T) {
	for round := range 30 {
		inR, inW := io.Pipe()
		go io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
		host := &replyOnLine{in: inW, reply: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}` + "\n"}
		r := runRelay(t, "echo", nil, inR, host)
		var order []string
		for _, rec := range r.records {
			switch {
			case rec.Kind != wire.KindFrame:
			case rec.Dir == wire.In:
				order = append(order, "server's line")
			case bytes.Contains(rec.Data, []byte("notifications/cancelled")):
				order = append(order, "host's reply")
			default:
				order = append(order, "request")
			}
		}
		// The echo server echoes the reply too.
		if strings.Join(order, ", ") != "request, server's line, host's reply, server's line" {
			t.Fatalf("round %d: records in the order %q", round, order)
		}
	}
}
