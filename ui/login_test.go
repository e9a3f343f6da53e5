package ui

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestLoginScreenPasteAndCancel(t *testing.T) {
	state := "logging in"
	var opened []string
	m := New(Options{now: newFakeClock().Now, static: true,
		AuthState: func() string { return state },
		OpenURL:   func(u string) error { opened = append(opened, u); return errors.New("no browser here") }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})

	paste := make(chan string, 1)
	url := "https://as.example/authorize?client_id=mcpoke&state=s1"
	m.Update(LoginMsg{Host: "https://as.example\x1b]0;pwned\x07", URL: url, Paste: paste})
	screen := ansi.Strip(m.render())
	for _, want := range []string{"log in", "https://as.example/authorize?client_id=mcpoke&state=s1", "paste that address", "esc cancel the login"} {
		if !strings.Contains(screen, want) {
			t.Errorf("login screen lacks %q:\n%s", want, screen)
		}
	}
	if strings.Contains(m.render(), "\x1b]0;pwned") {
		t.Error("the issuer's escape sequence reached the screen raw")
	}

	// ctrl+o opens the browser only when asked; its failure is said.
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	if cmd == nil {
		t.Fatal("ctrl+o gave no command")
	}
	m.Update(cmd())
	if len(opened) != 1 || opened[0] != url {
		t.Errorf("opened %q; want the login address once", opened)
	}
	if !strings.Contains(ansi.Strip(m.render()), "no browser could be started") {
		t.Error("the failed browser start is not said")
	}

	// Keys go to the paste field, not to the rest of the UI.
	m.Update(tea.PasteMsg{Content: "http://127.0.0.1:5/callback?code=c1&state=s1"})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	select {
	case got := <-paste:
		if got != "http://127.0.0.1:5/callback?code=c1&state=s1" {
			t.Errorf("pasted %q", got)
		}
	default:
		t.Fatal("enter did not hand over the pasted address")
	}
	state = "logged in"
	m.Update(LoginDoneMsg{})
	screen = ansi.Strip(m.render())
	if !strings.Contains(screen, "auth logged in") || !strings.Contains(screen, "logged in") {
		t.Errorf("after the login the header and status do not say so:\n%s", screen)
	}

	// esc gives up: the channel closes, which cancels the login.
	paste2 := make(chan string, 1)
	m.Update(LoginMsg{Host: "https://as.example", URL: url, Paste: paste2})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if _, ok := recvWithin(t, paste2, "esc to close the paste channel"); ok {
		t.Error("esc did not close the paste channel")
	}
	m.Update(LoginDoneMsg{Err: errors.New("login cancelled")})
	if !strings.Contains(ansi.Strip(m.render()), "login failed: login cancelled") {
		t.Error("the cancelled login is not said")
	}
}
