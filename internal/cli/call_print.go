package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/internal/toolresult"
)

// printReport writes the readable summary of a call. Every string that
// came from the server passes termtext first.
func printReport(w io.Writer, r *callReport, f *callFlags) {
	line := func(label, format string, a ...any) {
		fmt.Fprintf(w, "%-9s %s\n", label, fmt.Sprintf(format, a...))
	}
	label, target := r.target()
	line(label, "%s  (request %s)", termtext.Line(target), r.RequestID)
	switch {
	case r.Retried != nil && r.Retried.Lost:
		line("re-issued", "request %s was lost (%s); sent again as request %s, as protocol 2026-07-28 asks",
			r.Retried.RequestID, termtext.Line(r.Retried.Error), r.RequestID)
	case r.Retried != nil:
		line("retry", "request %s was refused for its headers (%s); tools listed again and the call sent again",
			r.Retried.RequestID, termtext.Line(r.Retried.Error))
	}
	printRounds(w, r.Rounds, r.RoundsStopped)
	line("server", "%s %s, protocol %s", termtext.Line(r.Server.Name), termtext.Line(r.Server.Version), r.Server.protocolText())
	if r.TraceID != "" {
		line("trace", "%s", r.TraceID)
	}
	state := r.State
	if r.isError {
		state += ", with a tool error (isError)"
	}
	if r.SettledMs != nil {
		// The settle window is mcpoke watching, not the server running.
		line("state", "%s after %s · settled after %s", state, human(r.ElapsedMs), human(*r.SettledMs))
	} else {
		line("state", "%s after %s", state, human(r.ElapsedMs))
	}
	line("timeout", "%s", describeTimeout(r.TimeoutMs, r.MaxTimeoutMs))
	if r.Task != nil {
		printTask(line, r.Task)
	}
	if n := max(r.ProgressCount, len(r.Progress)); len(r.Progress) > 0 {
		last := r.Progress[len(r.Progress)-1]
		head := fmt.Sprintf("%s; last %s at %s", english.Plural(n, "notification"), progressText(last), human(last.AtMs))
		if flagged := countFlagged(r.Progress); flagged > 0 {
			head += fmt.Sprintf("; %d flagged as protocol violations", flagged)
		}
		line("progress", "%s", head)
		printProgressList(w, r.Progress, n)
	}
	if r.Cancel != nil {
		if !r.Cancel.LateObservable {
			// The era's cancel: the stream closed, nothing was sent.
			line("cancel", "stream closed at %s: %s", human(r.Cancel.SentAtMs), termtext.Line(r.Cancel.Reason))
			line("", "%s", r.Cancel.Meaning)
			if len(r.Late) == 0 {
				line("late", "not observable: with its stream closed nothing more can arrive for the request, so the wire cannot show whether the server stopped")
			} else {
				printLate(line, r.Late, f.waitLate > 0, r.watched)
			}
		} else {
			switch r.Cancel.How {
			case "stream closed":
				// --cancel-mode close: the stream went, no message did.
				line("cancel", "stream closed at %s, nothing sent: %s", human(r.Cancel.SentAtMs), termtext.Line(r.Cancel.Reason))
			case "nothing":
				line("cancel", "nothing sent: %s", termtext.Line(r.Cancel.Reason))
			default:
				line("cancel", "sent at %s: %s", human(r.Cancel.SentAtMs), termtext.Line(r.Cancel.Reason))
			}
			if r.Cancel.Mode != "" && r.Cancel.Mode != "notify" {
				line("mode", "%s: %s", r.Cancel.Mode, r.Cancel.Meaning)
			}
			if r.Task != nil && r.Task.Cancel != nil {
				line("answer", "%s", taskCancelText(r.Task.Cancel))
			}
			printLate(line, r.Late, f.waitLate > 0, r.watched)
		}
		if r.Cancel.ServerCPU != nil {
			line("server CPU", "after cancel: %s", r.Cancel.ServerCPU.text())
		}
	}
	printServerSpans(w, r)
	printLog(w, r.Log, r.LogCount)
	if f.waitLate > 0 && r.Cancel == nil {
		line("after", "listened %s after the response for more traffic", human(ms(r.watched)))
	}
	printAsked(w, r.ServerRequests, r.ServerRequestCount)
	if n := max(r.StrayCount, len(r.Stray)); n > 0 {
		line("stray", "%s for no request in flight (responses, or progress after the response)", english.Plural(n, "message"))
	}
	printConnection(line, r)
	if r.Saved != nil {
		line("saved", "%s", termtext.Line(savedLine(r.Saved)))
	}
	if r.Result != nil {
		fmt.Fprintln(w, "result")
		if !printStoppedRound(w, r) {
			printResult(w, r.Method, r.Result)
		}
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
		n := max(r.StderrLines, len(r.Stderr))
		if left := n - len(r.Stderr); left > 0 {
			fmt.Fprintf(w, "stderr    %s from the server, first %d not kept\n", english.Plural(n, "line"), left)
		} else {
			fmt.Fprintf(w, "stderr    %s from the server\n", english.Plural(n, "line"))
		}
		for _, l := range r.Stderr {
			fmt.Fprintf(w, "  %s\n", termtext.Line(l))
		}
	}
}

// progressShownEnds is how many progress notifications the text report
// lists at each end of a long run; the JSON has them all.
const progressShownEnds = 5

// printProgressList lists the notifications, each with its time and
// flag: all of a short run, else the first and last few and how many of
// the count in between are not shown.
func printProgressList(w io.Writer, ps []reportProgress, count int) {
	show := func(p reportProgress) {
		text := fmt.Sprintf("  %9s  %s", human(p.AtMs), progressText(p))
		if p.Flag != 0 && p.Progress != nil {
			text += "  (" + p.Flag.String() + ")"
		}
		fmt.Fprintln(w, text)
	}
	if count <= 2*progressShownEnds || len(ps) < 2*progressShownEnds {
		for _, p := range ps {
			show(p)
		}
		return
	}
	for _, p := range ps[:progressShownEnds] {
		show(p)
	}
	fmt.Fprintf(w, "  … %d not shown between (--json lists them all)\n", count-2*progressShownEnds)
	for _, p := range ps[len(ps)-progressShownEnds:] {
		show(p)
	}
}

// progressText is one notification's value, total and message; a
// notification without a number says so, never 0.
func progressText(p reportProgress) string {
	if p.Progress == nil {
		return "no value (" + p.Flag.String() + ")"
	}
	desc := fmt.Sprintf("%g", *p.Progress)
	if p.Total != nil {
		desc += fmt.Sprintf("/%g", *p.Total)
	}
	if p.Message != "" {
		desc += " " + termtext.Line(p.Message)
	}
	return desc
}

// countFlagged is how many notifications broke a rule.
func countFlagged(ps []reportProgress) int {
	n := 0
	for _, p := range ps {
		if p.Flag != 0 {
			n++
		}
	}
	return n
}

// describeTimeout says how long the call would wait, for the report.
func describeTimeout(timeoutMs, maxMs float64) string {
	d := func(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
	switch {
	case timeoutMs == 0 && maxMs == 0:
		return "none"
	case timeoutMs == 0:
		return fmt.Sprintf("none, at most %s in all", d(maxMs))
	case maxMs == 0:
		return fmt.Sprintf("%s, restarted by each progress", d(timeoutMs))
	}
	return fmt.Sprintf("%s, restarted by each progress; at most %s in all", d(timeoutMs), d(maxMs))
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
	for _, kind := range []string{"response", "error", "progress", "status"} {
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
		plural := kind
		if kind == "status" {
			plural = "statuses"
		}
		switch {
		case n == 1:
			line(label, "1 %s, %s after the cancel", kind, human(first))
		case n > 1:
			line(label, "%d %s, %s to %s after the cancel", n, plural, human(first), human(last))
		default:
			continue
		}
		label = ""
	}
}

// printStoppedRound shows the result of a multi round-trip request that
// stopped while the server still wanted input: its questions are listed
// under rounds, and its requestState is opaque (and may be huge). It
// reports whether r was one.
func printStoppedRound(w io.Writer, r *callReport) bool {
	if len(r.Rounds) == 0 || r.Rounds[len(r.Rounds)-1].ResultType != mcp.ResultInputRequired {
		return false
	}
	ir, ok, err := mcp.ReadInputRequired(r.Result)
	if !ok || err != nil {
		return false
	}
	fmt.Fprintf(w, "  input_required: %s (listed under rounds)", english.Plural(len(ir.Requests), "input request"))
	// The rounds' figures are of the state as sent; the report's result
	// holds only its quote.
	size, quote := ir.StateSize, ir.StateQuote
	if last := r.Rounds[len(r.Rounds)-1]; last.RequestStateBytes != nil && last.RequestState != nil {
		size, quote = *last.RequestStateBytes, *last.RequestState
	}
	if ir.HasState {
		fmt.Fprintf(w, "; requestState of %s: %s", english.Plural(size, "byte"), termtext.Line(strconv.Quote(quote)))
	}
	fmt.Fprintln(w)
	return true
}

// resultShapes names the result each method's answer should be.
var resultShapes = map[string]string{
	"tools/call":     "CallToolResult",
	"resources/read": "ReadResourceResult",
	"prompts/get":    "GetPromptResult",
}

// printResult shows a tool result's content, a resource's contents or a
// prompt's messages, text as text; any other result as one line of JSON.
func printResult(w io.Writer, method string, raw json.RawMessage) {
	res, ok := toolresult.DescribeFor(method, raw)
	if !ok {
		if shape := resultShapes[method]; shape != "" {
			// Say so: a result of another shape (a 2025 answer to a 2026
			// request, a wrong type) would otherwise pass for one.
			fmt.Fprintf(w, "  (not a %s, or not one mcpoke can read: shown as it came)\n", shape)
		}
		fmt.Fprintf(w, "  %s\n", termtext.Line(compactJSON(raw)))
		return
	}
	for _, b := range res.Blocks {
		if (b.Tag == "text" && b.Head == "") || b.Tag == "" {
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
	case ms < 999.5: // what rounds to 1000ms is 1.00s
		return fmt.Sprintf("%.0fms", ms)
	}
	return fmt.Sprintf("%.2fs", ms/1000)
}
