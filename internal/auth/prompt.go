package auth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/charmbracelet/x/term"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// Prompter is how a login reaches the person.
type Prompter interface {
	// ShowLogin asks the person to log in at authURL, whose host is
	// host: the one the browser is sent to, never what metadata claims. It
	// returns a channel of what they paste (the address their browser
	// ended at, or the code), or nil when nobody can paste; closing it
	// cancels the login.
	ShowLogin(ctx context.Context, host, authURL string) <-chan string
	// LoginDone ends what ShowLogin showed; err is nil on success.
	LoginDone(err error)
}

// TerminalPrompter is the headless commands' prompter: it opens the
// browser (unless NoBrowser), always prints the URL on Out, and reads a
// pasted line from In when In is a terminal, so that a login works over
// SSH and in containers.
type TerminalPrompter struct {
	Out       io.Writer
	In        *os.File
	NoBrowser bool

	once  sync.Once
	lines chan string
	// unreachable: the last ShowLogin opened no browser and had no
	// terminal to read a paste from (see Unreachable).
	unreachable atomic.Bool
}

// ErrNobodyToLogIn means a headless login with no browser and no terminal,
// which would otherwise wait minutes for nobody.
var ErrNobodyToLogIn = errors.New("no browser opened and there is no terminal to paste into, so nobody can log in here: " +
	"run `mcpoke auth login --url URL` on a machine with a browser, or run this command in a terminal and paste the address the browser ended at")

// Unreachable implements the optional part of Prompter that a login
// checks after ShowLogin: ErrNobodyToLogIn when nobody can log in through
// this prompter now, and the login fails at once.
func (t *TerminalPrompter) Unreachable() error {
	if t.unreachable.Load() {
		return ErrNobodyToLogIn
	}
	return nil
}

// ShowLogin implements Prompter.
func (t *TerminalPrompter) ShowLogin(ctx context.Context, host, authURL string) <-chan string {
	opened := false
	if !t.NoBrowser {
		err := OpenBrowser(authURL)
		if opened = err == nil; !opened {
			fmt.Fprintf(t.Out, "mcpoke: could not open a browser: %s\n", termtext.Line(err.Error()))
		}
	}
	how := "Open this address in a browser to log in"
	if opened {
		how = "Your browser was asked to open this address; if it did not, open it yourself to log in"
	}
	fmt.Fprintf(t.Out, "mcpoke: %s at %s:\n\n  %s\n\n", how, termtext.Line(host), termtext.Line(authURL))
	noTerminal := t.In == nil || !term.IsTerminal(t.In.Fd())
	t.unreachable.Store(!opened && noTerminal)
	if noTerminal {
		return nil
	}
	fmt.Fprint(t.Out, "When the browser cannot reach this machine (SSH, a container), paste here the address it ended at (or the code) and press Enter:\n> ")
	t.once.Do(func() {
		// One reader for every login of the run: a login that ends
		// through the browser leaves it waiting for the next.
		t.lines = make(chan string)
		go func() {
			defer close(t.lines)
			sc := bufio.NewScanner(t.In)
			for sc.Scan() {
				if strings.TrimSpace(sc.Text()) != "" {
					t.lines <- sc.Text()
				}
			}
		}()
	})
	return t.lines
}

// LoginDone implements Prompter.
func (t *TerminalPrompter) LoginDone(err error) {
	if err != nil {
		fmt.Fprintf(t.Out, "\nmcpoke: login failed: %s\n", termtext.Line(err.Error()))
		return
	}
	fmt.Fprintln(t.Out, "\nmcpoke: logged in.")
}

// hostOf is the host (and port) of the address a browser is sent to.
func hostOf(authURL string) string {
	u, err := url.Parse(authURL)
	if err != nil || u.Host == "" {
		return authURL
	}
	return u.Host
}
