package mcp

import (
	"context"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// PingMethod is the request that checks a server is alive and has read
// everything before it: ping, which the modern revision removed; there,
// server/discover, which every modern server must answer.
func PingMethod(s *session.Session) string {
	if s.Era2026() {
		return "server/discover"
	}
	return "ping"
}

// StartPing sends PingMethod, bounded by timeout, and returns its handle.
func StartPing(ctx context.Context, s *session.Session, timeout time.Duration) (*session.Call, error) {
	return s.Call(ctx, PingMethod(s), nil, session.CallOptions{Timeout: timeout, NoProgressToken: true})
}

// Ping sends PingMethod and waits for its answer, at most timeout.
func Ping(ctx context.Context, s *session.Session, timeout time.Duration) error {
	_, err := s.Do(ctx, PingMethod(s), nil, session.CallOptions{Timeout: timeout, NoProgressToken: true})
	return err
}

// HealthPings reports whether the session's protocol has ping for a
// periodic health check ("Implementations SHOULD periodically issue
// pings", up to 2025-11-25). 2026-07-28 removed ping and names no
// replacement: each request stands alone, so there is nothing to probe.
func HealthPings(s *session.Session) bool { return !s.Era2026() }

// StartHealthPing sends a ping of the periodic health check: housekeeping
// (not a request the person made, and spared by cancel-all), without a
// timeout, so that a late answer still shows the connection lives.
func StartHealthPing(ctx context.Context, s *session.Session) (*session.Call, error) {
	return s.Call(ctx, "ping", nil, session.CallOptions{NoProgressToken: true, Housekeeping: true})
}
