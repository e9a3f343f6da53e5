package connect

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// StartError means the server could not be started or did not complete the
// MCP handshake. Its message names the server and quotes the last lines
// it wrote to stderr, which usually say why.
type StartError struct {
	Server Spec
	// Stage is "start" (spawning the process) or "initialize".
	Stage string
	// Step is the request the handshake was at when it failed,
	// "server/discover" or "initialize" ("" reads as initialize).
	Step string
	Err  error
	// Stderr holds the server's last stderr lines, oldest first.
	Stderr []string
}

// Error implements error. The first line says what happened; the
// server's stderr follows, one indented line each.
func (e *StartError) Error() string {
	var b strings.Builder
	who := fmt.Sprintf("server %q", e.Server.Name)
	if e.Server.Command != "" || e.Server.URL != "" {
		who += " (" + e.Server.CommandLine() + ")"
	}
	if e.Stage == "start" {
		fmt.Fprintf(&b, "cannot start %s: %v", who, e.Err)
	} else {
		step := e.Step
		if step == "" {
			step = "initialize"
		}
		fmt.Fprintf(&b, "%s failed during %s: %v", who, step, e.Err)
	}
	switch {
	case len(e.Stderr) > 0:
		b.WriteString("\nits stderr ends with:")
		for _, l := range e.Stderr {
			b.WriteString("\n    ")
			b.WriteString(l)
		}
	case e.Server.URL != "":
		// A remote server has no stderr of ours to quote.
		if errors.Is(e.Err, syscall.ECONNREFUSED) {
			b.WriteString("; nothing listens there: is the server running, on that port?")
		}
	case e.Stage != "start":
		b.WriteString(" (it wrote nothing to stderr)")
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *StartError) Unwrap() error { return e.Err }
