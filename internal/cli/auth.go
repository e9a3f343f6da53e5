package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/auth"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/transport"
)

// authRequestTimeout bounds each request of a login to the
// authorization server (not the person's time in the browser).
const authRequestTimeout = 30 * time.Second

// authFlags adds --client-id and --client-secret, which go with --url.
func authFlags(cmd *cobra.Command, g *globalFlags) {
	pf := cmd.PersistentFlags()
	pf.StringVar(&g.clientID, "client-id", "", "client id registered at the server's OAuth authorization server (an https URL: a Client ID Metadata Document); default: register dynamically")
	pf.StringVar(&g.clientSecret, "client-secret", "", "client secret that goes with --client-id (or $MCPOKE_CLIENT_SECRET)")
}

// credentialsStore is the credentials file; what it fixes is said on
// stderr.
func credentialsStore() (*auth.Store, error) {
	path, err := auth.DefaultStorePath()
	if err != nil {
		return nil, err
	}
	return &auth.Store{Path: path, Warn: func(s string) { fmt.Fprintln(os.Stderr, "mcpoke: "+s) }}, nil
}

// newAuthorizer returns the OAuth provider of a server reached by URL,
// or nil when the user sends their own Authorization header.
func newAuthorizer(g *globalFlags, spec connect.Spec, prompt auth.Prompter, fresh bool) (*auth.Provider, error) {
	if spec.URL == "" {
		return nil, nil
	}
	if h, err := connect.ParseHeaders(spec.Headers); err == nil && h.Get("Authorization") != "" {
		return nil, nil
	}
	store, err := credentialsStore()
	if err != nil {
		return nil, err
	}
	client, err := transport.NewHTTPClient(httpOptions(g))
	if err != nil {
		return nil, err
	}
	// Discovery, registration and token requests are small: a server
	// that hangs on one fails the login instead of holding it.
	client.Timeout = authRequestTimeout
	id, secret := spec.ClientID, spec.ClientSecret
	if g.clientID != "" {
		id, secret = g.clientID, g.clientSecret
	}
	if secret == "" && id != "" {
		secret = os.Getenv("MCPOKE_CLIENT_SECRET")
	}
	return auth.New(auth.Config{
		ServerURL: spec.URL, ClientID: id, ClientSecret: secret,
		HTTPClient: client, Store: store, Prompt: prompt, Fresh: fresh,
	}), nil
}

// terminalPrompt shows a login on stderr and reads a paste from stdin.
func terminalPrompt() auth.Prompter {
	return &auth.TerminalPrompter{Out: os.Stderr, In: os.Stdin}
}

// openServerWith opens the server with authorizer p, with the usual
// flags.
func openServerWith(ctx context.Context, g *globalFlags, spec connect.Spec, p *auth.Provider) (*connect.Conn, error) {
	return openServer(ctx, g, spec, serverOptions{auth: p})
}

var _ transport.Authorizer = (*auth.Provider)(nil)
