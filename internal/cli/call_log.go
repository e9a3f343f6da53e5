package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// maxLogKept bounds the log messages a report lists; Count stays exact.
const maxLogKept = 1000

// reportLog is one notifications/message the server sent while the
// request ran, in `--json`: as sent, with when it came and whether it
// came with this request (on its own Streamable HTTP stream).
type reportLog struct {
	AtMs   float64         `json:"atMs"`
	Level  string          `json:"level"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
	// Related: the message came on this request's own stream.
	Related bool `json:"related,omitempty"`
	// Problem says what was wrong with the notification.
	Problem string `json:"problem,omitempty"`
}

// loggedMessage is a log message as the recorder keeps it.
type loggedMessage struct {
	at      time.Time
	entry   mcp.LogEntry
	related session.Ref
	err     error
}

// recordLog keeps one notifications/message. Callers hold r.mu.
func (r *recorder) recordLog(n session.NotificationArrived) {
	r.logCount++
	if len(r.logs) >= maxLogKept {
		return
	}
	e, err := mcp.ParseLogMessage(n.Params)
	r.logs = append(r.logs, loggedMessage{at: n.At, entry: e, related: n.Related, err: err})
}

// logsSince are the messages that came from start on, as --json gives
// them, and how many there were in all. Callers hold rec.mu.
func (r *recorder) logsSince(start time.Time, seq uint64) ([]reportLog, int) {
	out := []reportLog{}
	n := r.logCount
	for _, l := range r.logs {
		if l.at.Before(start) {
			n--
			continue
		}
		rl := reportLog{AtMs: ms(l.at.Sub(start)), Level: l.entry.Level, Logger: l.entry.Logger, Data: l.entry.Data,
			Related: l.related.Seq == seq && seq != 0, Problem: l.entry.Problem}
		if l.err != nil {
			rl.Problem = l.err.Error()
		}
		out = append(out, rl)
	}
	return out, n
}

// printLog lists the log messages, escaped, one a line.
func printLog(w io.Writer, logs []reportLog, count int) {
	if count == 0 {
		return
	}
	fmt.Fprintf(w, "%-9s %s from the server while it ran\n", "log", english.Plural(count, "message"))
	for _, l := range logs {
		data := ""
		var s string
		if json.Unmarshal(l.Data, &s) == nil {
			data = s
		} else {
			var b bytes.Buffer
			if json.Compact(&b, l.Data) == nil {
				data = b.String()
			}
		}
		line := fmt.Sprintf("  %9s  %-7s", human(l.AtMs), termtext.Line(l.Level))
		if l.Logger != "" {
			line += " " + termtext.Line(l.Logger)
		}
		line += " " + termtext.Line(data)
		if l.Related {
			line += " (with this request)"
		}
		if l.Problem != "" {
			line += " (" + termtext.Line(l.Problem) + ")"
		}
		fmt.Fprintln(w, line)
	}
	if count > len(logs) {
		fmt.Fprintf(w, "  … %d more not kept\n", count-len(logs))
	}
}
