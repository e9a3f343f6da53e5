package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/auth"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/transport"
)

func newAuthCommand(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Log in to remote servers (OAuth), see and forget saved tokens",
		Long: `A remote server that answers 401 asks for a login: mcpoke finds its authorization
server, opens the login page in the browser ($BROWSER, else the system's) and prints its
address; over SSH or in a container, paste the address the browser ended at (or the code)
into the terminal. Tokens are kept in $XDG_CONFIG_HOME/mcpoke/credentials.json (mode 0600),
per server and authorization server, and refreshed when they expire. Any command that takes
--url logs in when needed; these commands do it on their own.`,
	}
	cmd.AddCommand(newAuthLoginCommand(g), newAuthStatusCommand(g), newAuthLogoutCommand(g))
	return cmd
}

func newAuthLoginCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "login --url URL",
		Short: "Log in to the server at URL now, even with saved tokens",
		Example: `  mcpoke auth login --url https://mcp.example.com/mcp
  mcpoke auth login --url https://mcp.example.com/mcp --client-id my-app --client-secret s3cret`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, err := authSpec(g)
			if err != nil {
				return err
			}
			p, err := newAuthorizer(g, spec, terminalPrompt(), true)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			if p == nil {
				return usageError("an Authorization header is given with --header or in the config: there is nothing to log in to")
			}
			conn, err := openServerWith(cmd.Context(), g, spec, p)
			if err != nil {
				return err
			}
			// Some servers let initialize through and ask on the next
			// request: the era's liveness probe is one every server
			// answers (ping; server/discover in 2026-07-28).
			perr := mcp.Ping(cmd.Context(), conn.Session, 10*time.Second)
			conn.Close()
			if perr != nil && p.State().Phase != "logged in" {
				return fmt.Errorf("ping after initialize: %w", perr)
			}
			st := p.State()
			if st.Phase != "logged in" {
				fmt.Fprintf(cmd.OutOrStdout(), "%s did not ask for a login: nothing saved\n", transport.RedactURL(spec.URL))
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "logged in to %s at %s%s\n", transport.RedactURL(spec.URL), termtext.Line(st.Issuer), scopeNote(st.Scopes))
			return nil
		},
	}
}

func newAuthStatusCommand(g *globalFlags) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status [--url URL] [--json]",
		Short: "Show the saved logins (never the tokens themselves)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := credentialsStore()
			if err != nil {
				return withCode(ExitFailed, err)
			}
			entries, err := store.List()
			if err != nil {
				return withCode(ExitFailed, err)
			}
			var rows []authStatus
			for _, e := range entries {
				if g.url == "" || e.Server == g.url {
					rows = append(rows, statusOf(e, time.Now()))
				}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, map[string]any{"file": store.Path, "logins": rows}, nil)
			}
			if len(rows) == 0 {
				fmt.Fprintf(out, "no saved logins%s (in %s)\n", forURL(g.url), store.Path)
				return nil
			}
			for _, r := range rows {
				printStatus(out, r)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the logins as one JSON object")
	return cmd
}

func newAuthLogoutCommand(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "logout --url URL",
		Short: "Forget the saved tokens and client of the server at URL",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if g.url == "" {
				return usageError("auth logout needs --url URL")
			}
			store, err := credentialsStore()
			if err != nil {
				return withCode(ExitFailed, err)
			}
			n, err := store.Delete(g.url)
			if err != nil {
				return withCode(ExitFailed, err)
			}
			if n == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "no saved login for %s\n", transport.RedactURL(g.url))
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "forgot the login of %s (%d authorization server%s)\n", transport.RedactURL(g.url), n, map[bool]string{true: "s"}[n > 1])
			return nil
		},
	}
}

// authSpec is the server of auth login: --url, or a URL server from
// --config.
func authSpec(g *globalFlags) (connect.Spec, error) {
	if g.url == "" && g.config == "" {
		return connect.Spec{}, usageError("auth login needs --url URL (or --config FILE --server NAME)")
	}
	spec, err := resolveSpec(g, nil)
	if err != nil {
		return spec, err
	}
	if spec.URL == "" {
		return spec, usageError("auth login is for servers reached by URL")
	}
	return spec, nil
}

// authStatus is one saved login, as auth status shows it: no secret.
type authStatus struct {
	Server        string    `json:"server"`
	Resource      string    `json:"resource"`
	Issuer        string    `json:"issuer"`
	ClientID      string    `json:"clientId"`
	Registration  string    `json:"registration"`
	Scopes        []string  `json:"scopes"`
	AccessToken   string    `json:"accessToken"`
	Expiry        time.Time `json:"expiry,omitzero"`
	RefreshToken  bool      `json:"refreshToken"`
	ClientSecret  bool      `json:"clientSecret"`
	SavedAt       time.Time `json:"savedAt,omitzero"`
	TokenEndpoint string    `json:"tokenEndpoint"`
}

func statusOf(e auth.Entry, now time.Time) authStatus {
	access := "none"
	switch {
	case e.AccessToken == "":
	case !e.Expiry.IsZero() && now.After(e.Expiry):
		access = "expired"
	default:
		access = "valid"
	}
	return authStatus{Server: transport.RedactURL(e.Server), Resource: e.Resource, Issuer: e.Issuer, ClientID: e.ClientID,
		Registration: e.Registration, Scopes: e.Scopes, AccessToken: access, Expiry: e.Expiry,
		RefreshToken: e.RefreshToken != "", ClientSecret: e.ClientSecret != "", SavedAt: e.Saved, TokenEndpoint: e.TokenEndpoint}
}

func printStatus(w io.Writer, r authStatus) {
	line := termtext.Line
	fmt.Fprintf(w, "%s\n  authorization server  %s\n  client                %s (%s)\n", line(r.Server), line(r.Issuer), line(r.ClientID), r.Registration)
	token := r.AccessToken
	if !r.Expiry.IsZero() {
		token += ", expires " + r.Expiry.Local().Format(time.DateTime)
	}
	if r.RefreshToken {
		token += "; refresh token saved"
	}
	fmt.Fprintf(w, "  access token          %s\n", token)
	if len(r.Scopes) > 0 {
		fmt.Fprintf(w, "  scopes                %s\n", line(strings.Join(r.Scopes, " ")))
	}
}

func scopeNote(scopes []string) string {
	if len(scopes) == 0 {
		return ""
	}
	return " with scopes " + termtext.Line(strings.Join(scopes, " "))
}

func forURL(u string) string {
	if u == "" {
		return ""
	}
	return " for " + transport.RedactURL(u)
}
