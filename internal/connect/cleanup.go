package connect

import "github.com/mcpoke/mcpoke/transport"

// Every server mcpoke starts runs in a process group of its own, so the
// terminal's signals do not reach it: when mcpoke is told to quit, it
// must stop them itself or they outlive it. These two are the only way
// to do that, and internal/cli is their only caller.

// CloseAll stops every server still running, politely (stdin closed,
// then SIGTERM, then SIGKILL), at once, and returns when they are gone.
// Servers cannot be started after it.
func CloseAll() { transport.CloseAll() }

// KillAll sends SIGKILL to every server still running and returns when
// they are reaped: the forced path, when the user asked twice. Servers
// cannot be started after it.
func KillAll() { transport.KillAll() }
