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

// Summary says how the process ended, without its stderr: "killed by
// signal SIGKILL", "exited with status 3". A status of 128+N is what a
// shell, npx or uvx reports when the server it ran was killed by signal
// N: the signal is named.
func (e *ExitError) Summary() string {
	if e.Signal != "" {
		return "killed by signal " + e.Signal
	}
	s := fmt.Sprintf("exited with status %d", e.Code)
	if name := childSignal(e.Code); name != "" {
		s += fmt.Sprintf(" (128+%d: the process it ran was killed by signal %s)", e.Code-128, name)
	}
	return s
}

// exitErrorLines is how many stderr lines Error quotes: enough for the
// usual "error: ... / at ... / exit" tail, short enough for a status line.
const exitErrorLines = 3

// Error implements error.
func (e *ExitError) Error() string {
	var b strings.Builder
	b.WriteString("server " + e.Summary())
	if tail := e.Stderr[max(0, len(e.Stderr)-exitErrorLines):]; len(tail) > 0 {
		b.WriteString("; last stderr: ")
		b.WriteString(strings.Join(tail, " | "))
	}
	return b.String()
}
