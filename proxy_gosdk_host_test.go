package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The go-sdk host (testdata/peers/gosdk/host): the official Go SDK's
// client, driven line by line, as the host of mcpoke proxy. These
// helpers run it, the proxy and mcpoke attach in one environment of the
// test's own, so that attach finds that proxy and no other.

// buildGoSDKHost builds the go-sdk host, or returns "" when it does not
// build here (no module proxy).
func buildGoSDKHost(t *testing.T) string { return buildGoSDK(t, "./host", "host") }

// proxyEnv is an environment whose runtime dir is the test's own: the
// proxies started in it listen there, and mcpoke attach looks there.
func proxyEnv(t *testing.T) []string {
	t.Helper()
	tmp, err := os.MkdirTemp("", "mcpoke-gosdk-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") && !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	return append(env, "TMPDIR="+tmp)
}

// sdkHost is a running go-sdk host.
type sdkHost struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	done  chan struct{} // closed when its stdout ends

	quitOnce sync.Once

	mu  sync.Mutex
	out []string // every line so far, for failure messages
	err bytes.Buffer
}

// startSDKHost runs the go-sdk host with args in env.
func startSDKHost(t *testing.T, host string, env []string, args ...string) *sdkHost {
	t.Helper()
	h := &sdkHost{t: t, cmd: exec.Command(host, args...), lines: make(chan string, 1000), done: make(chan struct{})}
	h.cmd.Env = env
	h.cmd.Stderr = lockedWriter{mu: &h.mu, b: &h.err}
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(h.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			h.mu.Lock()
			h.out = append(h.out, sc.Text())
			h.mu.Unlock()
			h.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { h.quit(10 * time.Second) })
	h.expect(`^connected: mcpoke-demo, protocol `, 30*time.Second)
	return h
}

// send writes one command line to the host.
func (h *sdkHost) send(format string, args ...any) {
	h.t.Helper()
	if _, err := fmt.Fprintf(h.stdin, format+"\n", args...); err != nil {
		h.t.Fatalf("the go-sdk host no longer reads its commands: %v\n%s", err, h.transcript())
	}
}

// expect waits up to d for a line of the host's that matches re, and
// returns it; lines before it are skipped (they stay in the transcript).
func (h *sdkHost) expect(re string, d time.Duration) string {
	h.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.After(d)
	for {
		select {
		case l := <-h.lines:
			if rx.MatchString(l) {
				return l
			}
		case <-h.done:
			select {
			case l := <-h.lines:
				if rx.MatchString(l) {
					return l
				}
				continue
			default:
			}
			h.t.Fatalf("the go-sdk host ended before printing a line matching %q:\n%s", re, h.transcript())
		case <-deadline:
			h.t.Fatalf("the go-sdk host printed no line matching %q within %v:\n%s", re, d, h.transcript())
		}
	}
}

// quiet asserts that the host prints no line matching re for d.
func (h *sdkHost) quiet(re string, d time.Duration) {
	h.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.After(d)
	for {
		select {
		case l := <-h.lines:
			if rx.MatchString(l) {
				h.t.Fatalf("the go-sdk host printed %q (matching %q), want nothing for %v", l, re, d)
			}
		case <-deadline:
			return
		}
	}
}

// quit closes the session and waits up to d for the host to exit.
func (h *sdkHost) quit(d time.Duration) {
	h.quitOnce.Do(func() { h.wait(d) })
}

func (h *sdkHost) wait(d time.Duration) {
	h.stdin.Close()
	exited := make(chan error, 1)
	go func() { <-h.done; exited <- h.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil && !h.t.Failed() {
			h.t.Errorf("the go-sdk host: %v\n%s", err, h.transcript())
		}
	case <-time.After(d):
		h.cmd.Process.Kill()
		<-exited
		h.t.Errorf("the go-sdk host did not exit within %v of its input closing", d)
	}
}

func (h *sdkHost) transcript() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return "stdout:\n" + strings.Join(h.out, "\n") + "\nstderr:\n" + h.err.String()
}

// startHTTPProxy starts `mcpoke proxy --url upstream` with more flags,
// in env (nil: this process's), on a free loopback port, and returns the
// URL it says to point the host at, and a stop that interrupts it and
// waits for it to end (writing its --report); the test's end stops it too.
func startHTTPProxy(t *testing.T, bin string, env []string, upstream string, flags ...string) (string, func()) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"proxy", "--url", upstream, "--listen", "127.0.0.1:0"}, flags...)...)
	cmd.Env = env
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Error("the proxy did not end within 10s of SIGINT")
			}
		})
	}
	t.Cleanup(stop)
	return proxyAddress(t, pipe), stop
}

// attach runs `mcpoke attach ARGS...` in env and returns its output; it
// must succeed.
func attach(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"attach"}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcpoke attach %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// waitRecords waits up to d until the records match re, and returns them.
func waitRecords(t *testing.T, file, re string, d time.Duration) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(d)
	for {
		b, _ := os.ReadFile(file)
		if rx.Match(b) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the records did not match %q within %v:\n%s", re, d, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countRecords counts the records lines that match re.
func countRecords(records, re string) int {
	rx := regexp.MustCompile(re)
	n := 0
	for _, l := range strings.Split(records, "\n") {
		if rx.MatchString(l) {
			n++
		}
	}
	return n
}
