package auth

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/ptytest"
)

// On a terminal, with no browser, the prompter asks for a paste and
// hands on the line typed there: the login of a person over SSH.
func TestTerminalPrompterReadsAPasteFromATerminal(t *testing.T) {
	master, slave := ptytest.Open(t, "cannot check a paste from a terminal")
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
