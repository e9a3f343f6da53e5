//go:build unix

package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// quickRaceExit spares each fake server the race detector's 1s sleep at
// exit.
var quickRaceExit = "GORACE=" + os.Getenv("GORACE") + " atexit_sleep_ms=0"

// startFake starts the test binary as a server in the given mode and
// closes it when the test ends.
func startFake(t *testing.T, mode string, opts StdioOptions) *Stdio {
	t.Helper()
	opts.Command = os.Args[0]
	opts.Env = append([]string{fakeServerEnv + "=" + mode, quickRaceExit}, opts.Env...)
	s, err := StartStdio(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Bounded, so a Close that hangs fails the test instead of
		// hanging it.
		done := make(chan struct{})
		go func() {
			s.Close()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(hangGuard):
			syscall.Kill(-s.Pid(), syscall.SIGKILL)
			syscall.Kill(s.Pid(), syscall.SIGKILL)
			t.Error("Close hung")
		}
	})
	return s
}

// recvUntilErr collects messages up to the error that ends the stream.
func recvUntilErr(t *testing.T, s *Stdio) ([]Message, error) {
	t.Helper()
	var ms []Message
	for {
		m, err := recv(t, s)
		if err != nil {
			return ms, err
		}
		ms = append(ms, m)
	}
}

// closeOrHang closes s and returns how long Close took, failing the test
// if Close hangs.
func closeOrHang(t *testing.T, s *Stdio) time.Duration {
	t.Helper()
	start := time.Now()
	done := make(chan struct{})
	go func() {
		s.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatalf("Close hung (over %v)", hangGuard)
	}
	return time.Since(start)
}

// exitOf is how the server ended, once Close or KillAll has returned.
func exitOf(t *testing.T, s *Stdio) *ExitError {
	t.Helper()
	waitClosed(t, "the Stdio finished (reaped, readers done)", s.done)
	return s.exitErr
}

// waitClosed waits for c to be closed; what says what did not happen.
func waitClosed(t *testing.T, what string, c <-chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(hangGuard):
		t.Fatalf("not done within %v: %s", hangGuard, what)
	}
}

// within runs f and fails the test if it has not returned within
// hangGuard; what says what did not happen.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	waitClosed(t, what, done)
}

// gone reports whether pid no longer runs. A zombie counts as gone: it is
// dead, and reaping it is up to its new parent (possibly a PID 1 that
// never reaps).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) && syscall.Kill(pid, 0) == syscall.ESRCH
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

func waitGone(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still running", what, pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func pidFrame(t *testing.T, s *Stdio) int {
	t.Helper()
	for {
		m, err := recv(t, s)
		if err != nil {
			t.Fatal(err)
		}
		if m.Kind != wire.KindFrame {
			continue
		}
		var v struct{ Pid int }
		if err := json.Unmarshal(m.Data, &v); err != nil || v.Pid == 0 {
			t.Fatalf("bad pid frame %q: %v", m.Data, err)
		}
		return v.Pid
	}
}

func TestStdioEcho(t *testing.T) {
	// A grace longer than the hang guard: if stdin EOF did not stop the
	// server, Close would hang rather than escalate.
	s := startFake(t, "echo", StdioOptions{CloseGrace: time.Hour})
	const senders, each = 4, 50
	want := map[string]bool{}
	var wg sync.WaitGroup
	for g := range senders {
		for i := range each {
			want[fmt.Sprintf(`{"g":%d,"i":%d}`, g, i)] = true
		}
		wg.Go(func() {
			for i := range each {
				if err := s.Send(fmt.Appendf(nil, `{"g":%d,"i":%d}`, g, i)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	// A frame far bigger than the pipe and read buffers.
	big := `{"big":"` + strings.Repeat("b", 1<<20) + `"}`
	wg.Go(func() {
		if err := s.Send([]byte(big)); err != nil {
			t.Error(err)
		}
	})
	for range senders*each + 1 {
		m, err := recv(t, s)
		if err != nil {
			t.Fatal(err)
		}
		if m.Kind != wire.KindFrame {
			t.Fatalf("got %s %q", m.Kind, m.Data)
		}
		if string(m.Data) == big {
			big = ""
			continue
		}
		if !want[string(m.Data)] {
			t.Fatalf("unexpected or repeated frame %.100q", m.Data)
		}
		delete(want, string(m.Data))
	}
	wg.Wait()
	if big != "" {
		t.Fatal("big frame not echoed")
	}
	// The echo server exits at stdin EOF, so Close needs no signals.
	closeOrHang(t, s)
	if e := exitOf(t, s); e.Code != 0 || e.Signal != "" {
		t.Fatalf("polite server ended with %v, want status 0 without a signal", e)
	}
	if _, err := recv(t, s); err != ErrClosed {
		t.Fatalf("Recv after Close: %v", err)
	}
	if err := s.Send([]byte("{}")); err != ErrClosed {
		t.Fatalf("Send after Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	live.Lock()
	_, registered := live.m[s]
	live.Unlock()
	if registered {
		t.Fatal("closed Stdio still registered for CloseAll")
	}
}

func TestStdioFraming(t *testing.T) {
	s := startFake(t, "write", StdioOptions{
		MaxFrameSize: 64,
		Env: []string{fakeStdoutEnv + "=starting up\n{\"a\":1}\r\n\n   \r\n{not json\n[1,2]\n" +
			"<big:100>\n{\"after\":true}\n<big:300000>\r\n{\"after\":2}"},
	})
	ms, err := recvUntilErr(t, s)
	want := []Message{
		{Kind: wire.KindNoise, Data: []byte("starting up")},
		{Kind: wire.KindFrame, Data: []byte(`{"a":1}`)},
		{Kind: wire.KindMalformed, Data: []byte("{not json")},
		{Kind: wire.KindFrame, Data: []byte("[1,2]")},
		{Kind: wire.KindOversize, Data: []byte(strings.Repeat("x", 64)), Size: 100},
		{Kind: wire.KindFrame, Data: []byte(`{"after":true}`)},
		{Kind: wire.KindOversize, Data: []byte(strings.Repeat("x", 64)), Size: 300000},
		{Kind: wire.KindFrame, Data: []byte(`{"after":2}`)},
	}
	if !sameLines(ms, want) {
		t.Fatalf("got  %s\nwant %s", describe(ms), describe(want))
	}
	var ee *ExitError
	if !errors.As(err, &ee) || err.Error() != "server exited with status 0" {
		t.Fatalf("got %v", err)
	}
}

func TestStdioStderr(t *testing.T) {
	s := startFake(t, "interleave", StdioOptions{StderrLines: 2})
	for i := range 3 {
		m, err := recv(t, s)
		if err != nil || m.Kind != wire.KindStderr || string(m.Data) != fmt.Sprintf("err %d", i) {
			t.Fatalf("want stderr line %d, got %s %q %v", i, m.Kind, m.Data, err)
		}
		s.Send([]byte("{}"))
		m, err = recv(t, s)
		if err != nil || m.Kind != wire.KindFrame || string(m.Data) != fmt.Sprintf(`{"i":%d}`, i) {
			t.Fatalf("want frame %d, got %s %q %v", i, m.Kind, m.Data, err)
		}
		s.Send([]byte("{}"))
	}
	if _, err := recvUntilErr(t, s); err == nil || err.Error() != "server exited with status 0; last stderr: err 1 | err 2" {
		t.Fatalf("got %v", err)
	}
	if got := s.StderrTail(5); !slices.Equal(got, []string{"err 1", "err 2"}) {
		t.Fatalf("StderrTail(5) = %q", got)
	}
	if got := s.StderrTail(1); !slices.Equal(got, []string{"err 2"}) {
		t.Fatalf("StderrTail(1) = %q", got)
	}
}

func TestStdioStderrLongLine(t *testing.T) {
	s := startFake(t, "write", StdioOptions{
		Env: []string{fakeStderrEnv + "=" + strings.Repeat("e", 10000) + "\nlast\n"},
	})
	ms, _ := recvUntilErr(t, s)
	if len(ms) != 2 || len(ms[0].Data) != maxStderrLine || string(ms[1].Data) != "last" {
		t.Fatalf("got %s", describe(ms))
	}
}

func TestStdioExitStatus(t *testing.T) {
	s := startFake(t, "write", StdioOptions{Env: []string{
		fakeStderrEnv + "=one\ntwo\n\nthree\r\nboom\n",
		fakeStdoutEnv + "={\"last\":1}\n",
		fakeCodeEnv + "=3",
	}})
	ms, err := recvUntilErr(t, s)
	// Every line comes before the exit: stderr was written first.
	var stderr []string
	frames := 0
	for _, m := range ms {
		switch m.Kind {
		case wire.KindStderr:
			stderr = append(stderr, string(m.Data))
		case wire.KindFrame:
			frames++
		}
	}
	if frames != 1 || !slices.Equal(stderr, []string{"one", "two", "three", "boom"}) {
		t.Fatalf("got %s", describe(ms))
	}
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || ee.Signal != "" {
		t.Fatalf("got %#v", err)
	}
	if want := "server exited with status 3; last stderr: two | three | boom"; err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
	// Recv keeps reporting the exit; Send says the server is gone.
	if _, err2 := recv(t, s); err2 != err {
		t.Fatalf("second Recv: %v", err2)
	}
	if err := s.Send([]byte("{}")); !errors.Is(err, ErrServerExited) {
		t.Fatalf("Send after exit: %v", err)
	}
}

func TestStdioKilledBySignal(t *testing.T) {
	s := startFake(t, "selfkill", StdioOptions{})
	_, err := recvUntilErr(t, s)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Signal != "SIGKILL" || ee.Code != -1 {
		t.Fatalf("got %#v", err)
	}
	if want := "server killed by signal SIGKILL; last stderr: dying"; err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
}

func TestStdioEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	s := startFake(t, "env", StdioOptions{Env: []string{"MCPOKE_X=hello"}, Dir: dir})
	m, err := recv(t, s)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ X, Dir string }
	json.Unmarshal(m.Data, &v)
	if v.X != "hello" || v.Dir != dir {
		t.Fatalf("got %q", m.Data)
	}
}

func TestStdioStartErrors(t *testing.T) {
	_, err := StartStdio(StdioOptions{Command: "mcpoke-no-such-command"})
	if err == nil || err.Error() != `start "mcpoke-no-such-command": executable file not found in $PATH` || !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("got %v", err)
	}
	_, err = StartStdio(StdioOptions{Command: "/nonexistent/server"})
	if err == nil || err.Error() != `start "/nonexistent/server": no such file or directory` {
		t.Fatalf("got %v", err)
	}
	_, err = StartStdio(StdioOptions{Command: os.Args[0], Dir: "/nonexistent"})
	if err == nil || !strings.HasSuffix(err.Error(), `: chdir /nonexistent: no such file or directory`) {
		t.Fatalf("got %v", err)
	}
	live.Lock()
	n := len(live.m)
	live.Unlock()
	if n != 0 {
		t.Fatalf("%d Stdios registered after failed starts", n)
	}
}

// A slow consumer stalls the server rather than growing memory, and still
// gets every frame, in order, before the exit.
func TestStdioBackpressure(t *testing.T) {
	s := startFake(t, "flood", StdioOptions{})
	time.Sleep(500 * time.Millisecond)
	if gone(s.Pid()) {
		t.Fatal("server finished writing with nobody reading")
	}
	checkFlood(t, s, floodFrames)
}

// Output still in the pipe when the server exits is delivered even if
// Recv gets to it long after the grace periods.
func TestStdioSlowConsumerAfterExit(t *testing.T) {
	// The first batch fills Recv's buffer, so the reader stops; the
	// second, about 50 KB, stays in the pipe.
	const n = 70 + 500
	s := startFake(t, "flood", StdioOptions{
		CloseGrace: 50 * time.Millisecond,
		Env:        []string{fakeFramesEnv + "=70,500"},
	})
	waitGone(t, "server", s.Pid())
	time.Sleep(300 * time.Millisecond)
	checkFlood(t, s, n)
}

func checkFlood(t *testing.T, s *Stdio, n int) {
	t.Helper()
	ms, err := recvUntilErr(t, s)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 0 {
		t.Fatalf("got %v", err)
	}
	if len(ms) != n {
		t.Fatalf("got %d frames, want %d", len(ms), n)
	}
	for i, m := range ms {
		if !bytes.HasPrefix(m.Data, fmt.Appendf(nil, `{"i":%d,`, i)) {
			t.Fatalf("frame %d is %.40q", i, m.Data)
		}
	}
}

func TestStdioCloseEscalates(t *testing.T) {
	const grace = 100 * time.Millisecond
	s := startFake(t, "stubborn", StdioOptions{CloseGrace: grace})
	if m, err := recv(t, s); err != nil || string(m.Data) != `{"ready":true}` {
		t.Fatalf("got %q %v", m.Data, err)
	}
	// Blocked in Recv while another goroutine closes.
	errc := make(chan error, 1)
	go func() {
		_, err := s.Recv()
		errc <- err
	}()
	d := closeOrHang(t, s)
	if d < 2*grace {
		t.Fatalf("Close took %v: it did not wait for stdin EOF and SIGTERM", d)
	}
	select {
	case err := <-errc:
		if err != ErrClosed {
			t.Fatalf("blocked Recv: %v", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("a Recv blocked during Close did not return")
	}
	waitGone(t, "server", s.Pid())
}

// A server that closes its stdout but lives on can send nothing more:
// Recv says so at once, without waiting for an exit that may never come.
func TestStdioOutputClosedWhileRunning(t *testing.T) {
	s := startFake(t, "closeout", StdioOptions{CloseGrace: 100 * time.Millisecond})
	if m, err := recv(t, s); err != nil || string(m.Data) != `{"last":true}` {
		t.Fatalf("got %s %q %v, want the frame written before stdout closed", m.Kind, m.Data, err)
	}
	if _, err := recv(t, s); err != ErrOutputClosed {
		t.Fatalf("Recv after the server closed stdout: %v, want ErrOutputClosed", err)
	}
	if gone(s.Pid()) {
		t.Fatal("the server exited: the test needs it alive to show Recv did not wait for the exit")
	}
	if _, err := recv(t, s); err != ErrOutputClosed {
		t.Fatalf("second Recv: %v, want ErrOutputClosed again", err)
	}
	closeOrHang(t, s)
	if _, err := recv(t, s); err != ErrClosed {
		t.Fatalf("Recv after Close: %v, want ErrClosed", err)
	}
	waitGone(t, "server", s.Pid())
}

// Without CloseGrace a server still gets DefaultCloseGrace to leave at
// stdin EOF: one that takes a moment ends with its own status, not with a
// signal.
func TestStdioDefaultCloseGrace(t *testing.T) {
	s := startFake(t, "slowexit", StdioOptions{})
	closeOrHang(t, s)
	if e := exitOf(t, s); e.Code != 0 || e.Signal != "" {
		t.Fatalf("server ended with %v, want status 0: it had no grace to leave at stdin EOF", e)
	}
}

func TestStdioCloseKillsGroup(t *testing.T) {
	s := startFake(t, "grandchild", StdioOptions{CloseGrace: 100 * time.Millisecond})
	gc := pidFrame(t, s)
	closeOrHang(t, s)
	waitGone(t, "server", s.Pid())
	waitGone(t, "grandchild", gc)
}

// The server leaves at stdin EOF but its child, in the same group, stays,
// holding stderr open. Close does not wait for that pipe: it kills the
// child. With graces longer than the hang guard, waiting out either one
// (for the pipe, or before SIGTERM) would hang the test.
func TestStdioCloseKillsLeftovers(t *testing.T) {
	s := startFake(t, "orphan", StdioOptions{CloseGrace: 100 * time.Millisecond})
	gc := pidFrame(t, s)
	closeOrHang(t, s)
	if e := exitOf(t, s); e.Code != 5 || e.Signal != "" {
		t.Fatalf("server ended with %v, want its own status 5 at stdin EOF", e)
	}
	waitGone(t, "grandchild", gc)
}

// The server exits by itself while its child holds stderr open: the exit
// is still reported, and the child is killed.
func TestStdioExitWithChildHoldingPipe(t *testing.T) {
	s := startFake(t, "orphan", StdioOptions{CloseGrace: 100 * time.Millisecond})
	gc := pidFrame(t, s)
	s.Send([]byte("{}"))
	_, err := recvUntilErr(t, s)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 5 {
		t.Fatalf("got %v", err)
	}
	waitGone(t, "grandchild", gc)
}

// A process that left the group keeps the pipes open; that must not keep
// the exit from being reported. It is still the server's descendant, so
// it is found by the server's tag and ended.
func TestStdioExitWithEscapedChild(t *testing.T) {
	s := startFake(t, "escape", StdioOptions{CloseGrace: 100 * time.Millisecond})
	gc := pidFrame(t, s)
	defer syscall.Kill(gc, syscall.SIGKILL)
	s.Send([]byte("{}"))
	_, err := recvUntilErr(t, s)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 5 {
		t.Fatalf("got %v", err)
	}
	closeOrHang(t, s)
	waitGone(t, "child that left the server's session", gc)
}

// startParent runs the test binary as an mcpoke-like parent and returns
// it with the pids of its server and of the server's child.
func startParent(t *testing.T) (parent *exec.Cmd, server, child int) {
	t.Helper()
	parent = exec.Command(os.Args[0])
	parent.Env = append(os.Environ(), fakeServerEnv+"=parent", quickRaceExit)
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		parent.Process.Kill()
		within(t, "the mcpoke stand-in was reaped after SIGKILL", func() { parent.Wait() })
	})
	var line string
	within(t, "the mcpoke stand-in reported its server's pids", func() {
		line, err = bufio.NewReader(out).ReadString('\n')
	})
	if _, scanErr := fmt.Sscan(line, &server, &child); err != nil || scanErr != nil {
		t.Fatalf("parent said %q: %v", line, err)
	}
	return parent, server, child
}

func TestCloseAllOnSignal(t *testing.T) {
	parent, server, child := startParent(t)
	if gone(server) || gone(child) {
		t.Fatal("server not running")
	}
	parent.Process.Signal(syscall.SIGTERM)
	var err error
	within(t, "the mcpoke stand-in exited after SIGTERM", func() { err = parent.Wait() })
	if err != nil {
		t.Fatalf("parent: %v", err)
	}
	waitGone(t, "server", server)
	// Only CloseAll reaches the child: Pdeathsig kills just the server.
	waitGone(t, "server's child", child)
}

func TestCloseAllInProcess(t *testing.T) {
	t.Cleanup(func() {
		live.Lock()
		live.quitting = false
		live.Unlock()
	})
	a := startFake(t, "hang", StdioOptions{CloseGrace: 50 * time.Millisecond})
	// A grace longer than the hang guard: echo must go at stdin EOF.
	b := startFake(t, "echo", StdioOptions{CloseGrace: time.Hour})
	returned := make(chan struct{})
	go func() {
		CloseAll()
		close(returned)
	}()
	waitClosed(t, "CloseAll returned", returned)
	// Both were stopped politely: stdin EOF for echo; hang ignores EOF
	// and had to be signalled.
	if e := exitOf(t, a); e.Signal == "" {
		t.Errorf("hanging server ended with %v, want a signal", e)
	}
	if e := exitOf(t, b); e.Code != 0 || e.Signal != "" {
		t.Errorf("echo server ended with %v, want status 0", e)
	}
	waitGone(t, "hanging server", a.Pid())
	waitGone(t, "echo server", b.Pid())
	if _, err := recv(t, a); err != ErrClosed {
		t.Fatalf("Recv after CloseAll: %v", err)
	}
	if _, err := StartStdio(StdioOptions{Command: os.Args[0]}); err != ErrQuitting {
		t.Fatalf("StartStdio after CloseAll: %v", err)
	}
}

// waitESRCH polls until pid no longer exists at all: KillAll reaps the
// servers it kills, and Close the adopted members of a family, so not even
// a zombie is left.
func waitESRCH(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for syscall.Kill(pid, 0) != syscall.ESRCH {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still exists, at least as a zombie", what, pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// KillAll skips the polite steps: servers that ignore stdin EOF and
// SIGTERM go at once, with their children, and a polite Close already
// under way ends too. The graces are longer than the hang guard, so only
// SIGKILL can end these servers in time.
func TestKillAll(t *testing.T) {
	t.Cleanup(func() {
		live.Lock()
		live.quitting = false
		live.Unlock()
	})
	a := startFake(t, "grandchild", StdioOptions{CloseGrace: time.Hour})
	gc := pidFrame(t, a)
	b := startFake(t, "stubborn", StdioOptions{CloseGrace: time.Hour})
	if m, err := recv(t, b); err != nil || string(m.Data) != `{"ready":true}` {
		t.Fatalf("got %q %v", m.Data, err)
	}
	// A polite Close of b, waiting out its grace when KillAll comes.
	closed := make(chan struct{})
	go func() {
		b.Close()
		close(closed)
	}()
	for deadline := time.Now().Add(hangGuard); !b.isClosed(); {
		if time.Now().After(deadline) {
			t.Fatal("Close never started (hang guard)")
		}
		time.Sleep(time.Millisecond)
	}
	if gone(a.Pid()) || gone(b.Pid()) || gone(gc) {
		t.Fatal("a server stopped before KillAll")
	}

	returned := make(chan struct{})
	go func() {
		KillAll()
		close(returned)
	}()
	waitClosed(t, "KillAll returned", returned)
	waitESRCH(t, "server ignoring SIGTERM", a.Pid())
	waitESRCH(t, "server ignoring SIGTERM with a Close under way", b.Pid())
	// The grandchild is not ours to reap: a zombie counts as gone.
	waitGone(t, "server's child", gc)
	for _, s := range []*Stdio{a, b} {
		if e := exitOf(t, s); e.Signal != "SIGKILL" {
			t.Errorf("server %d ended with %v, want SIGKILL", s.Pid(), e)
		}
	}
	waitClosed(t, "the Close under way ended after KillAll", closed)
	live.Lock()
	n := len(live.m)
	live.Unlock()
	if n != 0 {
		t.Errorf("%d Stdios still registered after KillAll", n)
	}
	if _, err := StartStdio(StdioOptions{Command: os.Args[0]}); err != ErrQuitting {
		t.Fatalf("StartStdio after KillAll: %v", err)
	}
}
