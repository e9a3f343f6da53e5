package cli

import (
	"errors"
	"fmt"
)

// Exit codes, documented in the root command's help and in mcpoke help exit-codes (internal/cli/help/exit-codes.md).
const (
	ExitOK        = 0 // the tool call completed
	ExitFailed    = 1 // the call failed, or the tool reported an error (isError)
	ExitUsage     = 2 // bad usage or input; the server could not be started or did not declare the capability
	ExitCancelled = 3 // the call was cancelled (--cancel-after)
	ExitTimedOut  = 4 // the call timed out (--timeout)
)

const exitCodesHelp = `Exit codes:
  0  completed
  1  failed, or the tool returned an error result (isError)
  2  bad usage or input (nothing was sent to the server), or the server could not be started,
     or it does not offer what was asked: a capability it did not declare (tools, resources,
     prompts; --force sends anyway), or a method its protocol version lacks (tasks/list in
     2026-07-28); then only the handshake was sent
  3  cancelled (--cancel-after)
  4  timed out (--timeout)`

// exitError ends a command with a given exit code.
type exitError struct {
	code int
	// err is printed as the error; nil when the command already printed
	// everything it had to say (a cancelled call's report).
	err error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageError is bad usage or input: exit 2.
func usageError(format string, a ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, a...)}
}

// refusedUnlessForced ends with exit 2 on a method the server did not
// declare (mcp.CheckDeclared's error), saying how to send it anyway.
func refusedUnlessForced(err error) error {
	return withCode(ExitUsage, fmt.Errorf("%w; --force sends it anyway", err))
}

// withCode ends with code, printing err.
func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// quietExit ends with code, printing nothing more.
func quietExit(code int) error {
	if code == ExitOK {
		return nil
	}
	return &exitError{code: code}
}

// exitStatus maps a command's error to the process exit status.
func exitStatus(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return ExitFailed
}
