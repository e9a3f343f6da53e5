//go:build unix

package transport

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// fakeThenEnv names the mode a cued fake server runs once cued.
const fakeThenEnv = "MCPOKE_FAKE_THEN"

func init() {
	fakeModes["cued"] = fakeCued
}

// fakeCued waits for one line on stdin, then runs the mode $MCPOKE_FAKE_THEN:
// nothing reaches stdout before the test has chosen how to receive it.
func fakeCued() {
	bufio.NewReader(os.Stdin).ReadString('\n')
	fakeModes[os.Getenv(fakeThenEnv)]()
}

// directLog collects what a direct receiver was handed.
type directLog struct {
	mu sync.Mutex
	ms []Message
}

// add keeps m and says how many items the log holds.
func (l *directLog) add(m Message) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ms = append(l.ms, m)
	return len(l.ms)
}

func (l *directLog) snapshot() []Message {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Message(nil), l.ms...)
}

// startCued starts a cued fake server that runs then, with a direct
// receiver f installed before it writes anything, and cues it.
func startCued(t *testing.T, then string, opts StdioOptions, f func(Message)) *Stdio {
	t.Helper()
	opts.Env = append(opts.Env, fakeThenEnv+"="+then)
	s := startFake(t, "cued", opts)
	if !s.ReceiveDirect(f) {
		t.Fatal("ReceiveDirect refused before anything was read")
	}
	if s.ReceiveDirect(func(Message) {}) {
		t.Fatal("a second ReceiveDirect was accepted")
	}
	if err := s.Send([]byte("go")); err != nil {
		t.Fatal(err)
	}
	return s
}

// Every stdout frame and stderr line goes to the direct receiver, each
// pipe's in order; Recv gives only the exit, once the receiver returned
// from the last of both: whether it held the readers only a moment or
// long enough for the relief to take over reading.
func TestStdioDirectFramesInOrderBeforeTheExit(t *testing.T) {
	for _, hold := range []time.Duration{reliefAfter / 5, 2 * reliefAfter} {
		t.Run(hold.String(), func(t *testing.T) { testDirectFramesInOrder(t, hold) })
	}
}

func testDirectFramesInOrder(t *testing.T, hold time.Duration) {
	const n = 300
	var out strings.Builder
	for i := range n {
		fmt.Fprintf(&out, "{\"i\":%d}\n", i)
	}
	out.WriteString("not json\n")
	var got directLog
	s := startCued(t, "write", StdioOptions{Env: []string{
		fakeStdoutEnv + "=" + out.String(), fakeStderrEnv + "=warn 1\nwarn 2\n", fakeCodeEnv + "=3",
	}}, func(m Message) {
		if m.Kind == wire.KindNoise || string(m.Data) == "warn 2" {
			// The last item of its pipe: an exit reported before it
			// returned would be seen below.
			time.Sleep(hold)
		}
		got.add(m)
	})

	ms, err := recvUntilErr(t, s)
	direct := got.snapshot()
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 {
		t.Fatalf("the stream ended with %v; want exit status 3", err)
	}
	if len(ms) > 0 {
		t.Fatalf("Recv gave a %s %q: everything but the end must go to the direct receiver", ms[0].Kind, ms[0].Data)
	}
	var frames, lines []Message
	for _, m := range direct {
		if m.Kind == wire.KindStderr {
			lines = append(lines, m)
		} else {
			frames = append(frames, m)
		}
	}
	if len(frames) != n+1 || len(lines) != 2 {
		t.Fatalf("the exit came when the direct receiver had returned from %d stdout items and %d stderr lines; want %d and 2",
			len(frames), len(lines), n+1)
	}
	for i, m := range frames[:n] {
		if m.Kind != wire.KindFrame || string(m.Data) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Fatalf("stdout item %d: %s %q", i, m.Kind, m.Data)
		}
	}
	if m := frames[n]; m.Kind != wire.KindNoise || string(m.Data) != "not json" {
		t.Fatalf("last stdout item: %s %q; want the noise line", m.Kind, m.Data)
	}
	if string(lines[0].Data) != "warn 1" || string(lines[1].Data) != "warn 2" {
		t.Fatalf("stderr lines %q, %q", lines[0].Data, lines[1].Data)
	}
	if tail := s.StderrTail(2); strings.Join(tail, "|") != "warn 1|warn 2" {
		t.Fatalf("StderrTail: %q", tail)
	}
}

// A server that closes stdout but lives on: ErrOutputClosed comes only
// once the receiver returned from the last frame, even one slower than
// the grace the transport gives the server to exit (the relief then reads
// the end of stdout).
func TestStdioDirectOutputClosedAfterTheLastFrame(t *testing.T) {
	for _, hold := range []time.Duration{0, 2 * outputClosedGrace} {
		t.Run(hold.String(), func(t *testing.T) { testDirectOutputClosed(t, hold) })
	}
}

func testDirectOutputClosed(t *testing.T, hold time.Duration) {
	var got directLog
	s := startCued(t, "closeout", StdioOptions{CloseGrace: 100 * time.Millisecond}, func(m Message) {
		time.Sleep(hold)
		got.add(m)
	})
	if _, err := recv(t, s); err != ErrOutputClosed {
		t.Fatalf("Recv: %v; want ErrOutputClosed", err)
	}
	if ms := got.snapshot(); len(ms) != 1 || string(ms[0].Data) != `{"last":true}` {
		t.Fatalf("ErrOutputClosed came when the receiver had returned from %d frames; want the last one", len(ms))
	}
}

// Once stdout has gone to Recv, ReceiveDirect refuses: frames would
// otherwise pass the ones queued for Recv.
func TestStdioDirectRefusedOnceRecvHadStdout(t *testing.T) {
	s := startFake(t, "echo", StdioOptions{})
	for i := range 2 {
		if err := s.Send(fmt.Appendf(nil, `{"i":%d}`, i)); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if m, err := recv(t, s); err != nil || string(m.Data) != `{"i":0}` {
				t.Fatalf("got %q %v", m.Data, err)
			}
			if s.ReceiveDirect(func(m Message) { t.Errorf("direct receiver got %q", m.Data) }) {
				t.Fatal("ReceiveDirect accepted after a frame went to Recv")
			}
		}
	}
	if m, err := recv(t, s); err != nil || string(m.Data) != `{"i":1}` {
		t.Fatalf("got %q %v; want the second frame through Recv", m.Data, err)
	}
}

// The receiver is not handed anything once Close has begun: it is in the
// middle of a flood when Close starts, and that call is its last, whether
// it returns at once or after the relief took over reading.
func TestStdioDirectNothingAfterClose(t *testing.T) {
	for _, hold := range []time.Duration{0, 2 * reliefAfter} {
		t.Run(hold.String(), func(t *testing.T) { testDirectNothingAfterClose(t, hold) })
	}
}

func testDirectNothingAfterClose(t *testing.T, hold time.Duration) {
	const last = 5
	var mu sync.Mutex
	calls := 0
	inLast := make(chan struct{})
	started := make(chan *Stdio, 1)
	s := startCued(t, "flood", StdioOptions{CloseGrace: 200 * time.Millisecond}, func(Message) {
		mu.Lock()
		calls++
		c := calls
		mu.Unlock()
		if c != last {
			return
		}
		s := <-started
		close(inLast)
		deadline := time.Now().Add(hangGuard)
		for !s.isClosed() && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(hold)
	})
	started <- s
	recvWithin(t, inLast, "the last flood frame at the callback")
	closeOrHang(t, s)
	mu.Lock()
	defer mu.Unlock()
	if calls != last {
		t.Fatalf("the receiver was called %d times; want %d, none after Close began", calls, last)
	}
	if _, err := recv(t, s); err != ErrClosed {
		t.Fatalf("Recv after Close: %v", err)
	}
}

// A receiver that holds a reader (as a session's reply to a ping does
// while the server, blocked on its full stdout, reads no stdin) does not
// stall the server: another goroutine takes over reading, up to Recv's
// buffer, as the channel did, and the receiver still gets every item in
// order before the exit. So for stdout and for stderr.
func TestStdioDirectSlowReceiverDoesNotStallTheServer(t *testing.T) {
	for _, pipe := range []string{fakeStdoutEnv, fakeStderrEnv} {
		t.Run(pipe, func(t *testing.T) { testDirectSlowReceiver(t, pipe) })
	}
}

func testDirectSlowReceiver(t *testing.T, pipe string) {
	// Five lines of 100 KB: far more than a pipe holds.
	const n = 5
	var out strings.Builder
	for i := range n {
		fmt.Fprintf(&out, "{\"i\":%d,\"pad\":\"<big:100000>\"}\n", i)
	}
	var got directLog
	started := make(chan *Stdio, 1)
	s := startCued(t, "write", StdioOptions{Env: []string{pipe + "=" + out.String()}}, func(m Message) {
		if got.add(m) == 1 {
			s := <-started
			deadline := time.Now().Add(hangGuard)
			for !gone(s.Pid()) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if !gone(s.Pid()) {
				t.Error("the server could not finish writing while the receiver held the first line")
			}
		}
	})
	started <- s
	if _, err := recv(t, s); !errors.As(err, new(*ExitError)) {
		t.Fatalf("Recv: %v; want the exit", err)
	}
	ms := got.snapshot()
	if len(ms) != n {
		t.Fatalf("the exit came after %d items; want %d", len(ms), n)
	}
	for i, m := range ms {
		if !strings.HasPrefix(string(m.Data), fmt.Sprintf(`{"i":%d,`, i)) {
			t.Fatalf("item %d: %s %.20q", i, m.Kind, m.Data)
		}
	}
}

// A receiver slow now and then: each time the relief takes over reading,
// then hands it back once the receiver caught up; nothing is lost or
// reordered across the hand-overs, and the exit comes after the last
// frame.
func TestStdioDirectReliefComesAndGoes(t *testing.T) {
	var got directLog
	s := startCued(t, "flood", StdioOptions{}, func(m Message) {
		if n := got.add(m); n == 1 || n == 2000 || n == 6000 {
			time.Sleep(2 * reliefAfter)
		}
	})
	if _, err := recv(t, s); !errors.As(err, new(*ExitError)) {
		t.Fatalf("Recv: %v; want the exit", err)
	}
	ms := got.snapshot()
	if len(ms) != floodFrames {
		t.Fatalf("the exit came after %d frames; want %d", len(ms), floodFrames)
	}
	for i, m := range ms {
		if !strings.HasPrefix(string(m.Data), fmt.Sprintf(`{"i":%d,`, i)) {
			t.Fatalf("frame %d is %.40q", i, m.Data)
		}
	}
}
