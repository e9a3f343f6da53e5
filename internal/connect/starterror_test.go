package connect

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
)

// A URL nobody listens on says so, and never that the remote server
// "wrote nothing to stderr", which it has none of ours.
func TestStartErrorOfAnUnreachableURL(t *testing.T) {
	err := &StartError{Server: URLSpec("http://127.0.0.1:1/mcp"), Stage: "initialize",
		Err: fmt.Errorf("server/discover: send: dial tcp 127.0.0.1:1: %w", syscall.ECONNREFUSED)}
	msg := err.Error()
	if !strings.Contains(msg, "nothing listens there: is the server running") || strings.Contains(msg, "stderr") {
		t.Fatalf("got %q", msg)
	}
	proc := &StartError{Server: Spec{Name: "x", Command: "x"}, Stage: "initialize", Err: fmt.Errorf("exited with status 3")}
	if !strings.Contains(proc.Error(), "(it wrote nothing to stderr)") {
		t.Fatalf("a process's error lost its stderr note: %q", proc.Error())
	}
}
