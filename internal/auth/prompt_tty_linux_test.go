package auth

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair, or skips the test.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal to paste into (%v)", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0)
	}
	var s *os.File
	if err == nil {
		s, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	}
	if err != nil {
		m.Close()
		t.Skipf("no pseudo-terminal to paste into (%v)", err)
	}
	return m, s
}

// On a terminal, with no browser, the prompter asks for a paste and
// hands on the line typed there: the login of a person over SSH.
func TestTerminalPrompterReadsAPasteFromATerminal(t *testing.T) {
	master, slave := openPTY(t)
	t.Cleanup(func() { slave.Close(); master.Close() })
	var out bytes.Buffer
	p := &TerminalPrompter{Out: &out, In: slave, NoBrowser: true}
	lines := p.ShowLogin(context.Background(), "as.example", "https://as.example/authorize?state=s")
	if lines == nil || !strings.Contains(out.String(), "paste here") {
		t.Fatalf("ShowLogin on a terminal returned %v and said:\n%s\nwant a paste asked for", lines, out.String())
	}
	if err := p.Unreachable(); err != nil {
		t.Errorf("Unreachable on a terminal: %v; want nil (a person can paste)", err)
	}
	if _, err := master.WriteString("code=abc&state=s\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-lines:
		if got != "code=abc&state=s" {
			t.Errorf("pasted line %q; want code=abc&state=s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the line typed on the terminal did not arrive within 10s")
	}
}
