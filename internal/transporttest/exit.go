package transporttest

import "github.com/mcpoke/mcpoke/transport"

// Exited is the error a stdio transport ends with when its server exits
// with code, having written stderr last: what a session's Closed event
// carries.
func Exited(code int, stderr ...string) error {
	return &transport.ExitError{Code: code, Stderr: stderr}
}
