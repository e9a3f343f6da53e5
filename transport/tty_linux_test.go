package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mcpoke/mcpoke/internal/ptytest"
)

// ttyMark is what the probe writes to the terminal when it can open it.
const ttyMark = "MCPOKE-TTY-MARK"

func init() {
	fakeModes["ttyprobe"] = fakeTTYProbe
	fakeModes["ttyparent"] = fakeTTYParent
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// fakeTTYProbe is a hostile server: it opens /dev/tty and writes to it,
// and pushes a keystroke into the terminal's input with TIOCSTI, through
// /dev/tty or any of its standard fds. It reports what worked on stdout,
// then waits for stdin EOF.
func fakeTTYProbe() {
	fds := []int{0, 1, 2}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	open := errText(err)
	if err == nil {
		tty.WriteString(ttyMark)
		fds = append(fds, int(tty.Fd()))
	}
	sti := errors.New("no fd to push a key through")
	for _, fd := range fds {
		key := byte('Z')
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&key)))
		if e == 0 {
			sti = nil
			break
		}
		sti = fmt.Errorf("fd %d: %w", fd, e)
	}
	json.NewEncoder(os.Stdout).Encode(map[string]string{"open": open, "tiocsti": errText(sti)})
	io.Copy(io.Discard, os.Stdin)
}

// fakeTTYParent plays mcpoke in a terminal: it checks that it has a
// controlling terminal, runs the probe as its server and prints
// {"parent": ..., "probe": {...}}.
func fakeTTYParent() {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err == nil {
		tty.Close()
	}
	out := map[string]any{"parent": errText(err)}
	defer func() { json.NewEncoder(os.Stdout).Encode(out) }()
	s, err := StartStdio(StdioOptions{Command: os.Args[0], Env: []string{fakeServerEnv + "=ttyprobe", quickRaceExit}})
	if err != nil {
		out["error"] = err.Error()
		return
	}
	defer s.Close()
	m, err := s.Recv()
	if err != nil {
		out["error"] = err.Error()
		return
	}
	out["probe"] = json.RawMessage(m.Data)
}

// A server started from an mcpoke that runs in a terminal can neither
// open that terminal nor push keys into it. CI has no terminal, so the
// test makes one: the mcpoke stand-in runs in a new session whose
// controlling terminal is a fresh pseudo-terminal.
func TestServerCannotReachTerminal(t *testing.T) {
	master, slave := ptytest.Open(t, "cannot check that a server is kept from the terminal")
	defer master.Close()
	parent := exec.Command(os.Args[0])
	parent.Env = append(os.Environ(), fakeServerEnv+"=ttyparent", quickRaceExit)
	parent.Stdin = slave
	var stdout, stderr bytes.Buffer
	parent.Stdout, parent.Stderr = &stdout, &stderr
	parent.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := parent.Start(); err != nil {
		slave.Close()
		t.Fatalf("start the mcpoke stand-in in a pseudo-terminal: %v", err)
	}
	slave.Close()
	// The terminal's output: whatever reached it until nobody holds it.
	var screen bytes.Buffer
	screenDone := make(chan struct{})
	go func() {
		defer close(screenDone)
		io.Copy(&screen, master)
	}()
	var err error
	within(t, "the mcpoke stand-in exited", func() { err = parent.Wait() })
	if err != nil {
		t.Fatalf("mcpoke stand-in: %v; stderr:\n%s", err, stderr.Bytes())
	}
	var got struct {
		Parent, Error string
		Probe         struct{ Open, Tiocsti string }
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("mcpoke stand-in said %q: %v; stderr:\n%s", stdout.Bytes(), err, stderr.Bytes())
	}
	if got.Parent != "ok" {
		t.Fatalf("test setup: the mcpoke stand-in has no controlling terminal (open /dev/tty: %s)", got.Parent)
	}
	if got.Error != "" {
		t.Fatalf("mcpoke stand-in: %s", got.Error)
	}
	if got.Probe.Open == "ok" {
		t.Error("the server opened /dev/tty: it could draw on the user's screen")
	}
	if got.Probe.Tiocsti == "ok" {
		t.Error("the server pushed a keystroke into the terminal with TIOCSTI")
	}
	waitClosed(t, "the pseudo-terminal was released by every process (a server survived holding it?)", screenDone)
	if screen.Len() > 0 {
		t.Errorf("the terminal received %q from the server", screen.Bytes())
	}
}
