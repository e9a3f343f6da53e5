package transport

import "testing"

func TestExitErrorText(t *testing.T) {
	tests := []struct {
		e    ExitError
		want string
	}{
		{ExitError{Code: 0}, "server exited with status 0"},
		{ExitError{Code: 3, Stderr: []string{"boom"}}, "server exited with status 3; last stderr: boom"},
		{ExitError{Code: 1, Stderr: []string{"a", "b", "c", "d"}}, "server exited with status 1; last stderr: b | c | d"},
		{ExitError{Code: -1, Signal: "SIGKILL", Stderr: []string{"x"}}, "server killed by signal SIGKILL; last stderr: x"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
