package demo

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// defaultLogLevel is the least severe level the demo sends before the
// client sets one.
const defaultLogLevel = "info"

// logLevel is the level the client set with logging/setLevel.
type logLevel struct {
	mu    sync.Mutex
	level string
}

func (l *logLevel) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.level == "" {
		return defaultLogLevel
	}
	return l.level
}

// setLevel answers logging/setLevel; an unknown level is -32602, as the
// logging spec asks.
func (srv *server) setLevel(_ context.Context, in *session.Incoming) (any, error) {
	var p struct {
		Level string `json:"level"`
	}
	if err := json.Unmarshal(in.Params, &p); err != nil {
		return nil, invalidParams("logging/setLevel: params must be an object with a level: %v", err)
	}
	if _, err := mcp.SetLevelParams(p.Level); err != nil {
		return nil, invalidParams("%v", err)
	}
	srv.level.mu.Lock()
	srv.level.level = p.Level
	srv.level.mu.Unlock()
	srv.logTo(in.Session(), "notice", "logging", "log level set to "+p.Level)
	return struct{}{}, nil
}

// logTo sends notifications/message on s when level is at or above the
// level the client set.
func (srv *server) logTo(s *session.Session, level, logger, text string) {
	if mcp.LevelRank(level) < mcp.LevelRank(srv.level.get()) {
		return
	}
	_ = s.Notify(mcp.LogMessage, map[string]string{"level": level, "logger": logger, "data": text})
}

// logFor logs about the request in: by the level the client set
// (logging/setLevel) for a legacy request; for a modern one by the level
// in its own _meta (io.modelcontextprotocol/logLevel), and not at all
// when it names none, as protocol 2026-07-28 requires.
func (srv *server) logFor(in *session.Incoming, level, logger, text string) {
	meta := mcp.ReadRequestMeta(in.Params)
	if meta.Version == "" {
		srv.logTo(in.Session(), level, logger, text)
		return
	}
	if meta.LogLevel == "" || mcp.LevelRank(level) < mcp.LevelRank(meta.LogLevel) {
		return
	}
	_ = in.Session().Notify(mcp.LogMessage, map[string]string{"level": level, "logger": logger, "data": text})
}
