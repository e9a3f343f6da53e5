package mcp

import (
	"context"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// SetLogLevel asks the server for log messages from level up, by the
// era's rule: logging/setLevel in legacy versions; in 2026-07-28, which
// removed it, the level travels in the _meta of every request sent from
// now on, and nothing is sent now.
func SetLogLevel(ctx context.Context, s *session.Session, level string, timeout time.Duration) error {
	if s.Era2026() {
		return s.SetLogLevel(level)
	}
	_, err := s.Do(ctx, "logging/setLevel", map[string]string{"level": level}, session.CallOptions{Timeout: timeout, NoProgressToken: true})
	return err
}
