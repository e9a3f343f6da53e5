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

func (l *directLog) add(m Message) {
	l.mu.Lock()
	l.ms = append(l.ms, m)
	l.mu.Unlock()
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

// Every stdout frame goes to the direct receiver, in order; Recv gives the
// stderr lines and then the exit, and only once the receiver returned
// from the last frame.
func TestStdioDirectFramesInOrderBeforeTheExit(t *testing.T) {
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
		if m.Kind == wire.KindNoise {
			// The last item: an exit reported before it returned would
			// be seen below.
			time.Sleep(100 * time.Millisecond)
		}
		got.add(m)
	})

	ms, err := recvUntilErr(t, s)
	direct := got.snapshot()
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 {
		t.Fatalf("the stream ended with %v; want exit status 3", err)
	}
	if len(direct) != n+1 {
		t.Fatalf("the exit came when the direct receiver had returned from %d items; want all %d", len(direct), n+1)
	}
	for i, m := range direct[:n] {
		if m.Kind != wire.KindFrame || string(m.Data) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Fatalf("direct item %d: %s %q", i, m.Kind, m.Data)
		}
	}
	if m := direct[n]; m.Kind != wire.KindNoise || string(m.Data) != "not json" {
		t.Fatalf("last direct item: %s %q; want the noise line", m.Kind, m.Data)
	}
	var lines []string
	for _, m := range ms {
		if m.Kind != wire.KindStderr {
			t.Fatalf("Recv gave a %s %q: stdout must all go to the direct receiver", m.Kind, m.Data)
		}
		lines = append(lines, string(m.Data))
	}
	if strings.Join(lines, "|") != "warn 1|warn 2" {
		t.Fatalf("stderr through Recv: %q", lines)
	}
}

// A server that closes stdout but lives on: ErrOutputClosed comes only
// once the receiver returned from the last frame, even one slower than
// the grace the transport gives the server to exit.
func TestStdioDirectOutputClosedAfterTheLastFrame(t *testing.T) {
	var got directLog
	s := startCued(t, "closeout", StdioOptions{CloseGrace: 100 * time.Millisecond}, func(m Message) {
		time.Sleep(2 * outputClosedGrace)
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
// middle of a flood when Close starts, and that call is its last.
func TestStdioDirectNothingAfterClose(t *testing.T) {
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
	})
	started <- s
	<-inLast
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
