package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/internal/toolresult"
)

// printReport writes the readable summary of a call. Every string that
// came from the server passes termtext first.
func printReport(w io.Writer, r *callReport, f *callFlags) {
	line := func(label, format string, a ...any) {
		fmt.Fprintf(w, "%-9s %s\n", label, fmt.Sprintf(format, a...))
	}
	line("tool", "%s  (request %s)", termtext.Line(r.Tool), r.RequestID)
	line("server", "%s %s, protocol %s", termtext.Line(r.Server.Name), termtext.Line(r.Server.Version), termtext.Line(r.Server.ProtocolVersion))
	state := r.State
	if r.isError {
		state += ", with a tool error (isError)"
	}
	line("state", "%s after %s", state, human(r.ElapsedMs))
	if n := len(r.Progress); n > 0 {
		last := r.Progress[n-1]
		desc := fmt.Sprintf("%g", last.Progress)
		if last.Total != nil {
			desc += fmt.Sprintf("/%g", *last.Total)
		}
		if last.Message != "" {
			desc += " " + termtext.Line(last.Message)
		}
		line("progress", "%s; last %s at %s", plural(n, "notification"), desc, human(last.AtMs))
	}
	if r.Cancel != nil {
		line("cancel", "sent at %s: %s", human(r.Cancel.SentAtMs), termtext.Line(r.Cancel.Reason))
		if r.Cancel.Mode != "" && r.Cancel.Mode != "notify" {
			line("mode", "%s: %s", r.Cancel.Mode, r.Cancel.Meaning)
		}
		printLate(line, r.Late, f.waitLate > 0, r.watched)
	}
	if len(r.Stray) > 0 {
		line("stray", "%d responses or progress for no request in flight", len(r.Stray))
	}
	if r.Result != nil {
		fmt.Fprintln(w, "result")
		printResult(w, r.Result)
	}
	if r.Error != nil {
		msg := termtext.Line(r.Error.Message)
		if r.Error.Code != nil {
			msg += fmt.Sprintf(" (code %d)", *r.Error.Code)
		}
		line("error", "%s", msg)
		if len(r.Error.Data) > 0 {
			line("", "data: %s", termtext.Line(compactJSON(r.Error.Data)))
		}
	}
	if f.stderr {
		fmt.Fprintf(w, "stderr    %s from the server\n", plural(len(r.Stderr), "line"))
		for _, l := range r.Stderr {
			fmt.Fprintf(w, "  %s\n", termtext.Line(l))
		}
	}
}

// printLate summarizes traffic after the cancel, one line per kind.
func printLate(line func(label, format string, a ...any), late []reportLate, waited bool, watched time.Duration) {
	if len(late) == 0 {
		if waited {
			line("late", "none within %s after the cancel", human(ms(watched)))
		} else {
			line("late", "none seen (add --wait-late 5s to keep listening after the cancel)")
		}
		return
	}
	label := "late"
	for _, kind := range []string{"response", "error", "progress"} {
		var first, last float64
		n := 0
		for _, l := range late {
			if l.Kind != kind {
				continue
			}
			if n == 0 {
				first = l.AfterCancelMs
			}
			last = l.AfterCancelMs
			n++
		}
		switch {
		case n == 1:
			line(label, "1 %s, %s after the cancel", kind, human(first))
		case n > 1:
			line(label, "%d %s, %s to %s after the cancel", n, kind, human(first), human(last))
		default:
			continue
		}
		label = ""
	}
}

// printResult shows a CallToolResult's content, text as text; any other
// result as one line of JSON.
func printResult(w io.Writer, raw json.RawMessage) {
	res, ok := toolresult.Describe(raw)
	if !ok {
		fmt.Fprintf(w, "  %s\n", termtext.Line(compactJSON(raw)))
		return
	}
	for _, b := range res.Blocks {
		if b.Tag == "text" || b.Tag == "" {
			printLines(w, "  ", b.Lines)
			continue
		}
		head := b.Tag
		if b.Head != "" {
			head += " " + b.Head
		}
		fmt.Fprintf(w, "  [%s]\n", head)
		printLines(w, "    ", b.Lines)
	}
	if len(res.Blocks) == 0 {
		fmt.Fprintln(w, "  (no content)")
	}
	if res.Structured != nil {
		fmt.Fprintln(w, "  structured")
		printLines(w, "    ", res.Structured)
	}
}

// printLines writes lines, each after pad.
func printLines(w io.Writer, pad string, lines []string) {
	for _, l := range lines {
		fmt.Fprintf(w, "%s%s\n", pad, l)
	}
}

func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// human formats milliseconds for reading: 0.052ms, 12ms, 1.50s.
func human(ms float64) string {
	switch {
	case ms < 10:
		return fmt.Sprintf("%.3gms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0fms", ms)
	}
	return fmt.Sprintf("%.2fs", ms/1000)
}

// plural says "1 line", "2 lines".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
