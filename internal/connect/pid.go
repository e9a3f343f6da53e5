package connect

// ServerPID is the process id of the stdio server mcpoke started, which
// is also its session id (it runs in a session of its own): what
// internal/cpumeter reads the CPU of its process family by. 0 when
// mcpoke did not start the server.
func (c *Conn) ServerPID() int { return c.pid() }
