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
	if s.Modern() {
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
