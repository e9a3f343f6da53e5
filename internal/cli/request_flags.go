package cli

import (
	"github.com/spf13/pflag"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// addRequestFlags adds the flags call, read and prompt share: cancel,
// timeouts, late traffic, transcript, JSON, diagram and the server's
// stderr. what names the request in the help ("call", "read").
func addRequestFlags(fl *pflag.FlagSet, f *callFlags, what string) {
	fl.DurationVar(&f.cancelAfter, "cancel-after", 0, "cancel the "+what+" after DUR (notifications/cancelled; tasks/cancel for a task; over 2026-07-28 HTTP, closing its stream)")
	addTimeoutFlags(fl, &f.timeoutFlags, "the "+what, "the "+what)
	fl.StringVar(&f.reason, "reason", "", "the reason sent with the cancellation (default: says who cancelled after how long)")
	fl.DurationVar(&f.waitLate, "wait-late", 0, "after a cancel or timeout, keep listening up to DUR and report late traffic; "+
		"after a response, listen DUR for traffic that follows it (progress after completion, duplicates)")
	fl.StringVar(&f.cancelMode, "cancel-mode", "notify", "how to cancel over HTTP: notify (notifications/cancelled), close (drop the request's response stream) or both")
	fl.StringVar(&f.transcript, "transcript", "", "write an NDJSON transcript of the wire to FILE")
	fl.BoolVar(&f.json, "json", false, "print the report as one JSON object")
	protocolFlag(fl, &f.protocol)
	fl.StringVar(&f.logLevel, "log-level", "", "ask the server to log from LEVEL up about the "+what+": in 2026-07-28 in its _meta, "+
		"without which such a server logs nothing; before, with logging/setLevel first")
	fl.BoolVar(&f.stderr, "stderr", false, "show what the server wrote to stderr (always in --json)")
	fl.StringVar(&f.otlpReceive, "otlp-receive", "", "receive the server's spans over OTLP/HTTP on HOST:PORT (loopback: 127.0.0.1:4318; implies --trace); "+
		"a server mcpoke starts is given OTEL_EXPORTER_OTLP_ENDPOINT to match; spans of the "+what+"'s trace are shown as server spans")
	fl.StringVar(&f.diagram, "diagram", "", "after the report, draw the "+what+" as a sequence diagram: mermaid or text "+
		"(with --json, as the string \"diagram\"); mcpoke diagram draws the same from a --transcript file")
}

// check refuses flag values that make no sense together, before anything
// starts.
func (f *callFlags) check() error {
	if f.waitLate < 0 || f.cancelAfter < 0 || f.timeout < 0 || f.maxTimeout < 0 {
		return usageError("durations must not be negative")
	}
	if f.reason != "" && f.cancelAfter == 0 {
		return usageError("--reason goes with --cancel-after")
	}
	if f.logLevel != "" {
		if _, err := mcp.SetLevelParams(f.logLevel); err != nil {
			return usageError("--log-level: %v", err)
		}
	}
	return nil
}
