package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// LogLevels are the levels of logging/setLevel and notifications/message,
// from the least severe (syslog, RFC 5424).
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// LevelRank is the level's place in LogLevels, or -1 for a level the spec
// does not know.
func LevelRank(level string) int { return slices.Index(LogLevels, level) }

// SetLevelParams are the params of logging/setLevel; it refuses a level
// the spec does not know, before anything is sent.
func SetLevelParams(level string) (json.RawMessage, error) {
	if LevelRank(level) < 0 {
		return nil, fmt.Errorf("log level %q: use one of %s", clip(level, 40), strings.Join(LogLevels, ", "))
	}
	p, _ := json.Marshal(struct {
		Level string `json:"level"`
	}{level})
	return p, nil
}

// LogEntry is one notifications/message from the server.
type LogEntry struct {
	Level  string
	Logger string
	// Data is the message's data as sent: any JSON value.
	Data json.RawMessage
	// RelatedTask is the task the message is about, when its _meta says
	// so (io.modelcontextprotocol/related-task, 2025-11-25).
	RelatedTask string
	// Problem says what is wrong with the notification (an unknown level,
	// no data), "" when nothing; what could be read is kept.
	Problem string
}

// ParseLogMessage reads the params of notifications/message. Only params
// that are not an object fail; an unknown level or missing data is kept
// with Problem saying so, as a log line is worth showing anyway.
func ParseLogMessage(params json.RawMessage) (LogEntry, error) {
	var p struct {
		Level  json.RawMessage `json:"level"`
		Logger json.RawMessage `json:"logger"`
		Data   json.RawMessage `json:"data"`
		Meta   struct {
			Related struct {
				TaskID string `json:"taskId"`
			} `json:"io.modelcontextprotocol/related-task"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return LogEntry{}, fmt.Errorf("%s: params must be an object: %w", LogMessage, err)
	}
	var e LogEntry
	var problems []string
	if json.Unmarshal(p.Level, &e.Level) != nil || e.Level == "" {
		problems = append(problems, "no level")
	} else if LevelRank(e.Level) < 0 {
		problems = append(problems, "unknown level")
	}
	if len(p.Logger) > 0 && string(p.Logger) != "null" && json.Unmarshal(p.Logger, &e.Logger) != nil {
		problems = append(problems, "logger is not a string")
	}
	if len(p.Data) == 0 {
		problems = append(problems, "no data")
	}
	e.Data = p.Data
	e.RelatedTask = p.Meta.Related.TaskID
	e.Problem = strings.Join(problems, ", ")
	return e, nil
}
