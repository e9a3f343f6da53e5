package ui

import (
	"context"
	"time"

	"github.com/mcpoke/mcpoke/internal/clock"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/cpumeter"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// Options configure the UI.
type Options struct {
	// Connect starts the server and a session on it, not yet
	// initialized, so that the UI sees initialize like any request. The
	// UI calls it at start and on every reconnect, always from a tea.Cmd.
	// Required.
	Connect func(context.Context) (*connect.Conn, error)
	// ConnectAnswering, when set, is used instead of Connect: it starts
	// the server with cs answering the server's own requests (install
	// its handlers in the session, declare its capabilities). The UI
	// makes one cs per connection; it asks the person, or Policy.
	ConnectAnswering func(ctx context.Context, cs *mcp.ClientSide) (*connect.Conn, error)
	// Roots are offered to the server from the start (--root, the config
	// entry's roots); the add-root key adds more.
	Roots []mcp.Root
	// Policy answers what it covers (--sample, --elicit) without asking.
	Policy mcp.Policy
	// Demo marks the built-in demo server: the first run shows a hint.
	Demo bool
	// Force lists tools even when the server did not declare the tools
	// capability (--force).
	Force bool
	// Timeout applies to new calls until changed with the timeout key;
	// progress restarts it, and ten times it is the hard limit. 0: none.
	Timeout time.Duration
	// MaxTimeout bounds a new call in all, whatever its progress
	// (--max-timeout); 0 leaves the session's ten times Timeout, negative
	// sets none.
	MaxTimeout time.Duration
	// Settle is the session's settle window (--settle), for the help to
	// state; 0 means the session's default of 1s, negative none.
	Settle time.Duration
	// CancelMode is the session's --cancel-mode: the header shows it when
	// it is not the default, as it changes what a cancel means.
	CancelMode session.CancelMode
	// AuthState, if set, is the login state of a remote server ("logged
	// in", "logging in", ...), which the header shows.
	AuthState func() string
	// PingInterval is how long the server may be silent before a health
	// ping (protocols up to 2025-11-25; see health.go); 0: no health pings.
	PingInterval time.Duration
	// OpenURL opens an address in the browser: ctrl+o on the login
	// screen (see LoginMsg).
	OpenURL func(string) error
	// ServerSpans, when set (--otlp-receive), are the spans received:
	// the timeline draws those of a request's trace, the server's work
	// beside the wire.
	ServerSpans SpanSource
	// Attached, when set, shows a proxy's traffic in place of a session
	// of the UI's own; Connect is then not used.
	Attached *Attached

	// The tests of this package set these for deterministic screens.

	// now is the clock for live times; default time.Now.
	now func() time.Time
	// clock runs the health check's timer; default the real clock.
	clock clock.Clock
	// static turns off spinners and ticks.
	static bool
	// frameInterval bounds how often session events reach the model;
	// default defaultFrameInterval.
	frameInterval time.Duration
	// cpuMeter stands in for meterServerCPU (tests).
	cpuMeter func(pid int) func() (cpumeter.AfterCancel, bool)
	// completionDelay is the debounce before a completion is asked for;
	// default completionDelay.
	completionDelay time.Duration
}

// SpanSource is an OTLP receiver (*otlprecv.Receiver).
type SpanSource interface {
	// Trace returns the spans received for traceID (hex).
	Trace(traceID string) []otlprecv.Span
	// Arrived is closed when the next batch of spans has been kept.
	Arrived() <-chan struct{}
}

// Attached is a running mcpoke proxy's traffic, for a UI that only
// watches it (mcpoke attach): rows are the host's requests and the
// server's requests to the host; only Control sends anything.
type Attached struct {
	// Name is the proxy's name.
	Name string
	// Start is when the proxy started: the wire log counts from it.
	Start time.Time
	// Run reads the proxy's stream, handing on each record (the wire log)
	// and the items it makes for the rows, in order: session events, and
	// rows.HoldChanged for the proxy's holds on answers. It runs until the
	// stream ends or ctx is done; its error says why the stream ended
	// early. The UI calls it once, on a goroutine of its own.
	Run func(ctx context.Context, record func(wire.Record), item func(any)) error
	// Info is the full record of a request, as the session would give it.
	Info func(seq uint64) (session.RequestInfo, bool)
	// Header says who the host and the server are, and how they talk.
	Header func() AttachedHeader
	// Control, when set, sends one control message to the proxy and
	// returns its reply as text (the report card: several lines). The UI
	// calls it from a tea.Cmd; without it the keys that would send are off.
	Control func(ctx context.Context, req AttachControl) (string, error)
}

// AttachControl is one control message for an attached proxy: Control
// is card, kill, kill-all, hold, release or drop; ID is the host's
// request id as JSON text (3 and "3" differ); Session its host session
// over HTTP (s1, s2, ...), where sessions may share ids.
type AttachControl struct {
	Control, ID, Reason, Session string
}

// AttachedHeader is what the header says of a proxied session.
type AttachedHeader struct {
	Host, Server, Version, Transport string
}
