// Package connect turns what the user asked for (a command after --, a
// server in a client config file, or nothing: the built-in demo server)
// into a running, tapped session.
//
// Start spawns the server and makes the session but does not initialize
// it, so a caller can Subscribe to the session first and see the
// handshake; then (*Conn).Initialize runs it. To reconnect, Close and
// Start again.
package connect

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpoke/mcpoke/transport"
)

// Spec says which server to run and how.
type Spec struct {
	// Name is what mcpoke calls the server in messages: its name in the
	// config file, "demo", or the command's base name.
	Name    string
	Command string
	Args    []string
	// Env holds KEY=VALUE pairs added to mcpoke's own environment.
	Env []string
	Dir string
	// URL is set for remote servers: --url, a URL after --, or a config
	// entry with "url".
	URL string
	// Transport is "auto" (or ""), "http" (Streamable HTTP) or "sse"
	// (legacy HTTP+SSE), for a URL.
	Transport string
	// Headers are "Name: value" lines sent with every HTTP request;
	// credential values are never shown (see transport.RedactHeader).
	Headers []string
	// ClientID and ClientSecret: the OAuth client mcpoke is at the
	// server's authorization server, when registered beforehand (config
	// entry "oauth": {"clientId", "clientSecret"}).
	ClientID, ClientSecret string
	// Roots are the config entry's roots: directories (absolute) or
	// file:// URIs, offered to the server with roots/list.
	Roots []string
	// Inputs are the ${input:ID} values the config asks the user for;
	// WithInputs fills them in. Start refuses a spec that still has some.
	Inputs []Input
	// UnsetEnv names the variables of the config's ${env:NAME} that are
	// not set: each expanded to "", as in VS Code, which warns of it; so
	// does mcpoke (UnsetEnvWarnings).
	UnsetEnv []string
}

// UnsetEnvWarnings are the warnings about s.UnsetEnv, one a line.
func (s Spec) UnsetEnvWarnings() []string {
	var out []string
	for _, name := range s.UnsetEnv {
		out = append(out, fmt.Sprintf("${env:%s} in the config of server %q is not set: it expands to an empty string", name, s.Name))
	}
	return out
}

// DemoServerArg is the subcommand that runs the built-in demo server.
const DemoServerArg = "demo-server"

// DemoSpec is the built-in demo server: this very binary, run as
// `mcpoke demo-server`, spawned through the real stdio transport.
func DemoSpec() (Spec, error) {
	exe, err := os.Executable()
	if err != nil {
		return Spec{}, fmt.Errorf("cannot find the mcpoke binary to run the demo server: %w", err)
	}
	return Spec{Name: "demo", Command: exe, Args: []string{DemoServerArg}}, nil
}

// CommandSpec is the server given on the command line after --; a single
// http(s) URL means a remote server.
func CommandSpec(argv []string) Spec {
	if len(argv) == 0 {
		return Spec{}
	}
	if len(argv) == 1 && IsURL(argv[0]) {
		return URLSpec(argv[0])
	}
	return Spec{Name: filepath.Base(argv[0]), Command: argv[0], Args: argv[1:]}
}

// CommandLine returns the command and its arguments as one line, for
// messages; arguments with spaces are quoted.
func (s Spec) CommandLine() string {
	if s.URL != "" {
		return transport.RedactURL(s.URL)
	}
	parts := make([]string, 0, 1+len(s.Args))
	for _, a := range append([]string{s.Command}, s.Args...) {
		if a == "" || strings.ContainsAny(a, " \t\"'") {
			a = fmt.Sprintf("%q", a)
		}
		parts = append(parts, a)
	}
	return s.showInputs(strings.Join(parts, " "))
}

// URLSpec is a remote server reached over HTTP.
func URLSpec(u string) Spec {
	name := u
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		name = p.Host
	}
	return Spec{Name: name, URL: u}
}

// IsURL reports whether s is an http:// or https:// URL.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}
