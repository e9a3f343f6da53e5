package cli

import (
	"encoding/json"
	"math"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// callReport is what `call --json` prints. Times are milliseconds since
// the request was sent. Lists are never null, so they can be counted
// without checks.
type callReport struct {
	RequestID session.ID `json:"requestId"`
	Method    string     `json:"method"`
	// Tool, URI or Prompt names what the request is about, by method.
	Tool   string          `json:"tool,omitempty"`
	URI    string          `json:"uri,omitempty"`
	Prompt string          `json:"prompt,omitempty"`
	State  string          `json:"state"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *reportError    `json:"error,omitempty"`
	// TimeoutMs is the call's timeout, restarted by each progress, and
	// MaxTimeoutMs its hard limit; 0 means none.
	TimeoutMs    float64 `json:"timeoutMs"`
	MaxTimeoutMs float64 `json:"maxTimeoutMs"`
	// Progress lists every progress notification with --json; the text
	// report keeps only the first and last few. ProgressCount counts all.
	Progress      []reportProgress `json:"progress"`
	ProgressCount int              `json:"progressCount"`
	Cancel        *reportCancel    `json:"cancel"`
	// Retried is set when this call is the retry of one the server
	// refused with HeaderMismatch (-32020), after listing the tools again.
	Retried *reportRetry `json:"retried,omitempty"`
	// Rounds are the rounds of a multi round-trip request (2026-07-28),
	// the report's request being the last; RoundsStopped says why they
	// stopped short (abandoned, too many rounds).
	Rounds []reportRound `json:"rounds,omitempty"`
	// TraceID is the trace of the request's traceparent (--trace).
	TraceID string `json:"traceId,omitempty"`
	// ServerSpans are the spans received (--otlp-receive) that share the
	// request's trace id; nil without --otlp-receive.
	ServerSpans   []reportSpan `json:"serverSpans,omitempty"`
	RoundsStopped string       `json:"roundsStopped,omitempty"`
	Late          []reportLate `json:"late"`

	// Task is the task the call created, when it ran as one; State and
	// the rest are then the task's.
	Task *reportTask `json:"task,omitempty"`

	// Stray lists the first 1000 stray responses; StrayCount counts all.
	Stray      []reportStray `json:"stray"`
	StrayCount int           `json:"strayCount"`
	// ElapsedMs is how long the request ran: a cancelled one until its
	// cancel was written. SettledMs is the settle window after that.
	ElapsedMs float64      `json:"elapsedMs"`
	SettledMs *float64     `json:"settledMs,omitempty"`
	Server    reportServer `json:"server"`
	// Stderr is what the server wrote to stderr while connected: the last
	// 1000 lines of StderrLines.
	Stderr      []string `json:"stderr"`
	StderrLines int      `json:"stderrLines"`
	// ServerRequests are the requests the server sent mcpoke meanwhile
	// (the first 1000; ServerRequestCount counts all): roots/list,
	// sampling, elicitation, tasks/get, and what became of each.
	ServerRequests     []reportAsked `json:"serverRequests"`
	ServerRequestCount int           `json:"serverRequestCount"`
	// Duplicates, noise, oversize, malformed and violations (see
	// connectionReport): each a count and the first few.
	connectionReport

	// Log lists the server's log messages (notifications/message) from
	// the request's start on; LogCount counts them all.
	Log      []reportLog `json:"log"`
	LogCount int         `json:"logCount"`
	// Saved says what read --out wrote.
	Saved *reportSaved `json:"saved,omitempty"`

	isError   bool          // the result says isError
	abandoned bool          // its rounds were abandoned between rounds
	watched   time.Duration // how long after the cancel late traffic was awaited
}

type reportError struct {
	Code    *int64          `json:"code,omitempty"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

type reportProgress struct {
	// Progress is null when the notification had no number (Flag says
	// why): never a made-up 0.
	Progress *float64 `json:"progress"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
	AtMs     float64  `json:"atMs"`
	// Flag is the rule the notification broke, if any: progress_missing,
	// progress_not_a_number, progress_not_increasing.
	Flag session.ViolationKind `json:"flag,omitempty"`
}

type reportCancel struct {
	Reason   string  `json:"reason"`
	SentAtMs float64 `json:"sentAtMs"`
	// Mode is --cancel-mode; Meaning what it did on this transport and
	// protocol version.
	Mode    string `json:"mode"`
	Meaning string `json:"meaning"`
	// How says what went on the wire: notification, stream closed, both,
	// or tasks/cancel.
	How string `json:"how"`
	// LateObservable is false when nothing could arrive after the cancel
	// (protocol 2026-07-28 over Streamable HTTP closes the request's
	// stream): an empty late list then proves nothing.
	LateObservable bool `json:"lateObservable"`
	// ServerCPU is what the server's processes burnt after the cancel,
	// read from /proc: only for a stdio server mcpoke started, on Linux.
	ServerCPU *reportCPU `json:"serverCpuAfterCancel,omitempty"`
}

// reportRetry is the first attempt of a call sent again: after a
// HeaderMismatch, or lost with its stream (Lost).
type reportRetry struct {
	RequestID session.ID `json:"requestId"`
	Error     string     `json:"error"`
	Lost      bool       `json:"lost,omitempty"`
}

type reportLate struct {
	Kind          string  `json:"kind"`
	AtMs          float64 `json:"atMs"`
	AfterCancelMs float64 `json:"afterCancelMs"`
}

type reportStray struct {
	Kind string  `json:"kind"`
	AtMs float64 `json:"atMs"`
}

type reportServer struct {
	Name            string `json:"name"`
	Version         string `json:"version"`
	ProtocolVersion string `json:"protocolVersion"`
	// Era is "modern" (2026-07-28: no handshake) or "legacy"
	// (initialize); Negotiation says how the version was reached.
	Era         string `json:"era,omitempty"`
	Negotiation string `json:"negotiation,omitempty"`
}

// serverOf is the report's view of what the server said in initialize
// or server/discover.
func serverOf(p session.PeerInfo) reportServer {
	return reportServer{p.ServerInfo.Name, p.ServerInfo.Version, p.ProtocolVersion, p.Era(), p.Negotiation}
}

// protocolText is the version with its era and how it was reached, for
// text reports: "2026-07-28 (modern, by server/discover)".
func (s reportServer) protocolText() string {
	t := termtext.Line(s.ProtocolVersion)
	switch {
	case s.Era != "" && s.Negotiation != "":
		t += " (" + s.Era + ", by " + termtext.Line(s.Negotiation) + ")"
	case s.Era != "":
		t += " (" + s.Era + ")"
	}
	return t
}

// buildReport combines the request table's final view of the call with
// what the event stream showed. rec must have finished reading.
func buildReport(info session.RequestInfo, rec *recorder, peer session.PeerInfo) *callReport {
	start := info.Started
	at := func(t time.Time) float64 { return ms(t.Sub(start)) }
	rep := &callReport{
		RequestID:    info.ID,
		Method:       info.Method,
		Tool:         info.Tool,
		State:        info.State.String(),
		TimeoutMs:    ms(info.Timeout),
		MaxTimeoutMs: ms(info.MaxTimeout),
		ElapsedMs:    ms(info.Ran(time.Now())),
		Server:       serverOf(peer),
		Progress:     []reportProgress{},
		Late:         []reportLate{},
		Stray:        []reportStray{},
		Stderr:       []string{},
	}
	switch target := mcp.RequestTarget(info.Method, info.Params); info.Method {
	case "resources/read":
		rep.URI = target
	case "prompts/get":
		rep.Prompt = target
	}
	switch {
	case info.State == session.Completed:
		rep.Result = info.Result
		rep.isError = mcp.CallResultIsError(info.Result)
	case info.Error != nil:
		code := info.Error.Code
		rep.Error = &reportError{Code: &code, Message: info.Error.Message, Data: info.Error.Data}
	case info.Failure != "":
		rep.Error = &reportError{Message: info.Failure}
	}
	if !info.CancelAt.IsZero() {
		rep.Cancel = &reportCancel{Reason: info.CancelReason, How: cancelHow(info), LateObservable: info.CancelWire.LateObservable()}
		if !info.CancelSentAt.IsZero() {
			rep.Cancel.SentAtMs = at(info.CancelSentAt)
		}
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.callSeq == info.Seq || (rec.taskSeq == info.Seq && info.TaskID != "") {
		// The recorder's list as it is: --json may list a million.
		if p := append(rec.progress, rec.lastProgress...); p != nil {
			rep.Progress = p
		}
		rep.ProgressCount = rec.progressCount
	}
	for _, e := range rec.late {
		if l := e.Late; e.Ref.Seq == info.Seq {
			rep.Late = append(rep.Late, reportLate{l.Kind.String(), at(l.At), ms(l.AfterCancel)})
		}
	}
	for _, s := range rec.stray {
		if !s.At.Before(start) {
			rep.Stray = append(rep.Stray, reportStray{s.Kind.String(), at(s.At)})
		}
	}
	rep.StrayCount = len(rep.Stray) + rec.strayCount - len(rec.stray)
	rep.Stderr = append(rep.Stderr, rec.keptStderr()...)
	rep.StderrLines = rec.stderrCount
	rep.Log, rep.LogCount = rec.logsSince(start, info.Seq)
	rep.connectionReport = rec.conn.report(info.Seq, start)
	return rep
}

// target is the report's first line: what kind of thing the request is
// about, and which.
func (r *callReport) target() (label, name string) {
	switch {
	case r.URI != "":
		return "resource", r.URI
	case r.Prompt != "":
		return "prompt", r.Prompt
	}
	return "tool", r.Tool
}

// exitCode is the process status the report calls for.
func (r *callReport) exitCode() int {
	switch {
	case r.abandoned:
		return ExitCancelled
	case r.RoundsStopped != "":
		return ExitFailed
	}
	switch r.State {
	case session.Completed.String():
		if r.isError || (r.Saved != nil && r.Saved.Error != "") {
			return ExitFailed
		}
		return ExitOK
	case session.Cancelled.String():
		return ExitCancelled
	case session.TimedOut.String():
		return ExitTimedOut
	}
	return ExitFailed
}

// ms is d in milliseconds, to a tenth of a microsecond: the cancel path
// takes microseconds.
func ms(d time.Duration) float64 { return math.Round(float64(d)/100) / 1e4 }
