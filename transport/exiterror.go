package transport

import (
	"errors"
	"fmt"
	"strings"
)

// ErrServerExited is returned by Send once the server process has exited.
var ErrServerExited = errors.New("transport: server has exited")

// ExitError is what Recv returns when the server process ended by itself,
// after every message it wrote was delivered.
type ExitError struct {
	// Code is the exit status, or -1 when a signal ended the process.
	Code int
	// Signal names the signal that ended the process, such as "SIGKILL";
	// it is empty after a normal exit.
	Signal string
	// Stderr holds the last lines the server wrote to stderr, oldest first.
	Stderr []string
}

// exitErrorLines is how many stderr lines Error quotes: enough for the
// usual "error: ... / at ... / exit" tail, short enough for a status line.
const exitErrorLines = 3

// Error implements error.
func (e *ExitError) Error() string {
	var b strings.Builder
	if e.Signal != "" {
		fmt.Fprintf(&b, "server killed by signal %s", e.Signal)
	} else {
		fmt.Fprintf(&b, "server exited with status %d", e.Code)
	}
	if tail := e.Stderr[max(0, len(e.Stderr)-exitErrorLines):]; len(tail) > 0 {
		b.WriteString("; last stderr: ")
		b.WriteString(strings.Join(tail, " | "))
	}
	return b.String()
}
