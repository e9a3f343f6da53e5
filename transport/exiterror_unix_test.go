//go:build unix

package transport

import "testing"

// A shell, npx or uvx reports a server it ran that a signal killed as
// status 128+N: the signal is named.
func TestExitErrorNamesAChildsSignal(t *testing.T) {
	for _, tt := range []struct {
		e    ExitError
		want string
	}{
		{ExitError{Code: 137}, "server exited with status 137 (128+9: the process it ran was killed by signal SIGKILL)"},
		{ExitError{Code: 143, Stderr: []string{"Terminated"}}, "server exited with status 143 (128+15: the process it ran was killed by signal SIGTERM); last stderr: Terminated"},
		{ExitError{Code: 128}, "server exited with status 128"},
		{ExitError{Code: 255}, "server exited with status 255"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
