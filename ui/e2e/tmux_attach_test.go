package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// hostDeadline bounds every wait for a line the host gets.
const hostDeadline = 20 * time.Second

// proxyHost is this test as the host: it runs `mcpoke proxy` on the demo
// and speaks JSON-RPC to it on its stdin and stdout.
type proxyHost struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan string
}

func startProxyHost(t *testing.T, bin, name string) *proxyHost {
	t.Helper()
	cmd := exec.Command(bin, "proxy", "--name", name, "--", bin, "demo-server")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &proxyHost{t: t, in: in, lines: make(chan string, 256)}
	go func() {
		defer close(h.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		in.Close() // the host leaves: the proxy stops the demo and exits
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(hostDeadline):
			cmd.Process.Kill()
			t.Errorf("the proxy did not exit within %s of its host closing stdin", hostDeadline)
		}
	})
	h.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e-host","version":"1"}}}`)
	h.answer(1, "initialize's answer")
	h.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return h
}

func (h *proxyHost) send(line string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, line+"\n"); err != nil {
		h.t.Fatalf("host write: %v", err)
	}
}

// answer waits for the answer to request id, failing on another one's
// answer coming first only if it is for an id the test expects never.
func (h *proxyHost) answer(id int, what string) string {
	h.t.Helper()
	deadline := time.After(hostDeadline)
	prefix := fmt.Sprintf(`"id":%d,`, id)
	for {
		select {
		case l, ok := <-h.lines:
			if !ok {
				h.t.Fatalf("the proxy's output ended before %s", what)
			}
			if strings.Contains(l, prefix) || strings.HasSuffix(l, fmt.Sprintf(`"id":%d}`, id)) {
				if !strings.Contains(l, `"method"`) {
					return l
				}
			}
		case <-deadline:
			h.t.Fatalf("the host waited %s for %s", hostDeadline, what)
		}
	}
}

// none says the host got no answer to id for a while.
func (h *proxyHost) none(id int, d time.Duration, why string) {
	h.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case l := <-h.lines:
			if strings.Contains(l, fmt.Sprintf(`"id":%d,`, id)) || strings.Contains(l, fmt.Sprintf(`"id":%d}`, id)) {
				h.t.Fatalf("%s, yet the host got %s", why, l)
			}
		case <-deadline:
			return
		}
	}
}

// The attach TUI's keys act on a real proxy's host: c kills a slow call
// (the host gets the proxy's error, the row says cancelled), h holds an
// answer that enter then passes on, and x drops one the host then never
// gets.
func TestTmuxAttachKillHoldReleaseDrop(t *testing.T) {
	x := startTmuxOn(t)
	name := fmt.Sprintf("e2e-%d", os.Getpid())
	h := startProxyHost(t, x.bin, name)
	h.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":60,"steps":1}}}`)
	x.open("attach", name)
	x.waitFor("host e2e-host 1", "stdio proxy", "tools/call sleep", "pending")

	// c on the slow call: the proxy cancels it for the host.
	x.keys("G", "c")
	x.waitFor("⊘ cancelled", "proxy: cancelled on the host's behalf: 2")
	if ans := h.answer(2, "the proxy's answer to the killed call"); !strings.Contains(ans, "-32800") {
		t.Errorf("the host got %s for its killed call, want the proxy's error", ans)
	}

	// h holds the answer to a 2s call; enter passes it on.
	h.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":2,"steps":1}}}`)
	x.waitFor("3    tools/call sleep")
	x.keys("G", "h")
	x.waitFor("proxy: will hold the answer to 3")
	x.waitFor("3    tools/call sleep    ✓ completed") // the server answered
	h.none(3, 500*time.Millisecond, "the answer to 3 is held")
	x.keys("Enter")
	x.waitFor("proxy: passed on the held answer to 3")
	if ans := h.answer(3, "the released answer"); !strings.Contains(ans, `"result"`) {
		t.Errorf("released, the host got %s, want the server's result", ans)
	}

	// x drops a held answer: the host never gets it.
	h.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep","arguments":{"seconds":2,"steps":1}}}`)
	x.waitFor("4    tools/call sleep")
	x.keys("G", "h")
	x.waitFor("proxy: will hold the answer to 4")
	x.waitFor("4    tools/call sleep    ✓ completed")
	x.keys("x")
	x.waitFor("proxy: dropped the held answer to 4")
	h.none(4, time.Second, "the answer to 4 was dropped")
	h.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"}}}`)
	h.answer(5, "the echo after the drop")
	x.keys("q")
}
