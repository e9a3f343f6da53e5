package cli

import (
	"context"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/auth"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/ui"
)

// tuiLogin shows the TUI's logins: a screen with the address and a
// paste field (ui.LoginMsg), never a browser tab opened unasked.
type tuiLogin struct {
	send    func(tea.Msg)
	current atomic.Pointer[auth.Provider]
}

// options returns opts with a new OAuth provider for this connection of
// the TUI (each reconnect gets its own).
func (l *tuiLogin) options(g *globalFlags, spec connect.Spec, opts connect.Options) (connect.Options, error) {
	p, err := newAuthorizer(g, spec, l, false)
	if err != nil || p == nil {
		return opts, err
	}
	l.current.Store(p)
	opts.Auth = p
	return opts, nil
}

// state is the header's auth state: "" when the server never asked.
func (l *tuiLogin) state() string {
	p := l.current.Load()
	if p == nil {
		return ""
	}
	if ph := p.State().Phase; ph != "none" {
		return ph
	}
	return ""
}

// ShowLogin implements auth.Prompter.
func (l *tuiLogin) ShowLogin(_ context.Context, host, authURL string) <-chan string {
	ch := make(chan string, 1)
	l.send(ui.LoginMsg{Host: host, URL: authURL, Paste: ch})
	return ch
}

// LoginDone implements auth.Prompter.
func (l *tuiLogin) LoginDone(err error) { l.send(ui.LoginDoneMsg{Err: err}) }
