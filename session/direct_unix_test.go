//go:build unix

package session

import (
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// Over a real stdio server, every notification it writes reaches the
// subscriber, in order, by the direct path alone, and the session ends
// with the server's exit only after the last of them and its stderr line.
func TestSessionStdioDirectInOrderThenExit(t *testing.T) {
	const n = 300
	script := `read cue; i=0; while [ $i -lt ` + strconv.Itoa(n) + ` ]; do
printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%d}}\n' $i; i=$((i+1)); done
echo bye >&2; exit 3`
	stdio, err := transport.StartStdio(transport.StdioOptions{Command: "sh", Args: []string{"-c", script}})
	if err != nil {
		t.Skip("no sh:", err)
	}
	c := &countingConn{Stdio: stdio}
	s := New(c, Config{})
	defer s.Close()
	sub := s.Subscribe()
	defer sub.Close()
	if err := s.Notify("cue", nil); err != nil {
		t.Fatal(err)
	}
	next, bye := 0, false
	timeout := time.After(20 * time.Second)
	for {
		var e Event
		select {
		case e = <-sub.C:
		case <-timeout:
			t.Fatalf("no end after %d notifications", next)
		}
		switch e := e.(type) {
		case NotificationArrived:
			if want := `{"level":"info","data":` + strconv.Itoa(next) + `}`; string(e.Params) != want {
				t.Fatalf("notification %d: %s; want %s", next, e.Params, want)
			}
			next++
		case StderrLine:
			bye = bye || e.Line == "bye"
		case Closed:
			var ee *transport.ExitError
			if !errors.As(e.Err, &ee) || ee.Code != 3 {
				t.Fatalf("closed with %v; want exit status 3", e.Err)
			}
			if next != n || !bye {
				t.Fatalf("the session ended after %d notifications (stderr line seen: %v); want all %d and the line before the exit", next, bye, n)
			}
			if direct, recv := c.counts(); direct != n || recv != 0 {
				t.Fatalf("frames: %d by the direct path, %d by Recv; want all %d direct", direct, recv, n)
			}
			return
		}
	}
}

// countingConn counts the frames a Stdio gives by each path.
type countingConn struct {
	*transport.Stdio
	mu           sync.Mutex
	direct, recv int
}

func (c *countingConn) Recv() (transport.Message, error) {
	m, err := c.Stdio.Recv()
	if err == nil && m.Kind == wire.KindFrame {
		c.mu.Lock()
		c.recv++
		c.mu.Unlock()
	}
	return m, err
}

func (c *countingConn) ReceiveDirect(f func(transport.Message)) bool {
	return c.Stdio.ReceiveDirect(func(m transport.Message) {
		if m.Kind == wire.KindFrame {
			c.mu.Lock()
			c.direct++
			c.mu.Unlock()
		}
		f(m)
	})
}

func (c *countingConn) counts() (direct, recv int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.direct, c.recv
}
