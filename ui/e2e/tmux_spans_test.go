package e2e

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTmuxTimelineServerSpans cancels a sleep on the instrumented demo,
// over stdio and over Streamable HTTP, with the UI receiving the demo's
// spans (--otlp-receive): the timeline draws the server's span, ended at
// the cancel.
func TestTmuxTimelineServerSpans(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			recvAddr := "127.0.0.1:" + freePort(t)
			args := []string{"--otlp-receive", recvAddr}
			if transport == "http" {
				args = append(args, "--url", startHTTPDemo(t, "http://"+recvAddr))
			}
			x := startTmuxUntil(t, []string{"● ready", "TOOLS 9"}, args...)
			x.keys("Enter")
			x.waitFor("CALL sleep")
			x.keys("Enter")
			x.waitFor("sent tools/call sleep as request #", "pending")
			time.Sleep(800 * time.Millisecond)
			x.keys("c")
			x.waitFor("⊘ cancelled")
			x.keys("d")
			s := x.waitFor("server spans · trace ", "tools/call sleep [mcpoke-demo]", "event work stopped")
			// At the cancel: within 5 ms, or, on a loaded machine, soon after.
			m := regexp.MustCompile(`(ended at the cancel \([-+][0-9.]+m?s\)|ran on ([0-9.]+)ms after the cancel) · error: cancelled`).FindStringSubmatch(s)
			if m == nil {
				t.Fatalf("the timeline does not show the server's span ending at the cancel:\n%s", s)
			}
			if m[2] != "" && x.seconds(m[0], `ran on ([0-9.]+)ms`) > 250 {
				t.Errorf("the server's span ended %sms after the cancel; want it at the cancel:\n%s", m[2], s)
			}
			t.Logf("%s:\n%s", transport, s)
			x.keys("q")
		})
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// startHTTPDemo runs the demo server over Streamable HTTP, exporting its
// spans to otlp, and returns its URL.
func startHTTPDemo(t *testing.T, otlp string) string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed") // startTmux says more, or fails under MCPOKE_REQUIRE_TMUX
	}
	cmd := exec.Command(buildBinary(t), "demo-server", "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+otlp)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("the demo server did not exit within 10s of SIGINT")
		}
	})
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 {
				select {
				case url <- strings.Fields(sc.Text()[i:])[0]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-url:
		return u
	case <-time.After(screenDeadline):
		t.Fatal("the demo server printed no URL within the deadline")
	}
	return ""
}
