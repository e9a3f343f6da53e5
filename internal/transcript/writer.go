// Package transcript writes everything that passed a transport.Tap as
// NDJSON, one line per item in wire order:
//
//	{"t":12.345,"dir":"out","msg":{...the frame...}}
//	{"t":13.002,"dir":"in","msg":{...},"note":"late"}
//	{"t":13.010,"dir":"in","raw":"Listening on stdio","note":"noise"}
//	{"t":13.200,"dir":"stderr","raw":"server log line"}
//	{"t":13.300,"dir":"http","http":"POST tools/call id 3 → 200 OK text/event-stream"}
//	{"t":14.000,"dir":"relay","relay":"the host closed its input"}
//	{"t":15.000,"session":"s2","dir":"out","msg":{...}}
//
// t is milliseconds since the tap started. msg holds a frame as it was on
// the wire; raw holds a line that is not JSON (noise, the start of an
// oversize frame, with "size", or a stderr line). Server stderr lines are
// kept, with dir "stderr", because that is where servers log what they
// did with a cancellation. Lines with dir "relay" (mcpoke proxy's, an
// optional kind like "http") say what happened to the relay itself. Over
// HTTP, lines with dir "http" (an optional
// kind: readers that know only in, out and stderr skip them) hold the
// HTTP facts: each POST's status and content type, the session id,
// streams opened and closed, SSE event ids, retry and comment lines,
// reconnects with Last-Event-ID, DELETE. Credentials never appear.
//
// note marks inbound traffic the wire shows to be out of the ordinary:
//
//	late       a response, error or progress for a request after our
//	           notifications/cancelled for it passed the tap: the moment
//	           the session times late traffic from, so a late line's t
//	           minus the cancel's t is the delay the TUI and call show
//	stray      a response or progress for no request we sent, or progress
//	           for a request already answered
//	duplicate  a second response to one request
//	noise      a line that is not a JSON-RPC message
//	request-error  the transport's word that a request's answer cannot
//	           come; raw says why (e.g. its POST got HTTP 500)
//	forced     (out) a request for a capability the server did not
//	           declare in initialize, sent because of --force
//
// "violations" lists the rules of JSON-RPC or MCP an inbound frame broke,
// named and judged as the session does (session.ViolationKind):
//
//	{"t":14.1,"dir":"in","msg":{"jsonrpc":"1.0","id":3,...},"violations":["jsonrpc_version"]}
//
// "session" (mcpoke proxy over HTTP) names the host session the line
// belongs to, s1, s2, ... by its Mcp-Session-Id: two sessions' requests
// may share an id.
//
// Notes are derived from the wire order itself, so a transcript explains
// itself without the session that produced it. The session decides a
// cancel a moment before it writes it, and never takes what it reads in
// that moment as a result: it shows it late by 0, where the transcript
// shows an answer just before the cancel.
package transcript

import (
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/jsonscan"
	"github.com/mcpoke/mcpoke/internal/wire"
)

// Writer turns tap records into transcript lines. Attach it with
// tap.Observe(w.Observe). It is safe for concurrent use.
type Writer struct {
	start time.Time

	mu    sync.Mutex
	w     io.Writer
	err   error // the first write error; later lines are dropped
	buf   []byte
	notes notes
}

// New writes a transcript to w, counting time from start (use the tap's
// Start). Each line is written with one Write, so a transcript file can
// be followed while it grows.
func New(w io.Writer, start time.Time) *Writer {
	return &Writer{w: w, start: start, notes: newNotes()}
}

// Observe is a transport.Observer.
func (tw *Writer) Observe(r wire.Record) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.err != nil {
		return
	}
	b := append(tw.buf[:0], `{"t":`...)
	b = strconv.AppendFloat(b, float64(r.At.Sub(tw.start).Microseconds())/1000, 'f', 3, 64)
	if r.Session != "" {
		b = appendString(append(b, `,"session":`...), []byte(r.Session))
	}
	switch {
	case r.Kind == wire.KindRelay:
		b = appendString(append(b, `,"dir":"relay","relay":`...), r.Data)
	case r.Dir == wire.Out && r.Kind != wire.KindFrame:
		// A proxied host's line that is no frame: passed on, flagged.
		b = appendRaw(append(b, `,"dir":"out"`...), r.Data)
		if r.Size > len(r.Data) {
			b = strconv.AppendInt(append(b, `,"size":`...), int64(r.Size), 10)
		}
		b = appendNote(b, noteNoise)
	case r.Dir == wire.Out:
		valid := jsonscan.Valid(r.Data)
		b = appendMsg(append(b, `,"dir":"out"`...), r.Data, valid)
		tw.notes.in(r.Session)
		if valid {
			b = appendNote(b, tw.notes.sent(r.Data))
		}
	case r.Kind == wire.KindStderr:
		b = appendRaw(append(b, `,"dir":"stderr"`...), r.Data)
	case r.Kind == wire.KindHTTP:
		b = appendString(append(b, `,"dir":"http","http":`...), r.Data)
	case r.Kind == wire.KindRequestError:
		b = appendRaw(append(b, `,"dir":"in"`...), r.Data)
		b = appendNote(b, noteRequestError)
	case r.Kind == wire.KindFrame:
		valid := jsonscan.Valid(r.Data)
		b = appendMsg(append(b, `,"dir":"in"`...), r.Data, valid)
		if r.Size > len(r.Data) {
			// Kept cut short (the TUI's W): the full length, as for oversize.
			b = strconv.AppendInt(append(b, `,"size":`...), int64(r.Size), 10)
		}
		tw.notes.in(r.Session)
		note, violations := noteNoise, []string(nil)
		if valid {
			note, violations = tw.notes.received(r.Data)
		}
		b = appendViolations(appendNote(b, note), violations)
	case r.Kind == wire.KindOversize:
		b = appendRaw(append(b, `,"dir":"in"`...), r.Data)
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, int64(r.Size), 10)
		b = appendNote(b, noteNoise)
	default:
		b = appendRaw(append(b, `,"dir":"in"`...), r.Data)
		b = appendNote(b, noteNoise)
	}
	b = append(b, "}\n"...)
	_, tw.err = tw.w.Write(b)
	if cap(b) <= 1<<20 {
		tw.buf = b // keep the buffer, unless one huge frame grew it
	}
}

// Err returns the first error writing the transcript, if any.
func (tw *Writer) Err() error {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	return tw.err
}

// appendMsg adds "msg" with the frame as it was, or "raw" when it is not
// JSON (valid says whether it is), or not on one line (which would break
// NDJSON).
func appendMsg(b, frame []byte, valid bool) []byte {
	if !valid || hasNewline(frame) {
		return appendRaw(b, frame)
	}
	b = append(b, `,"msg":`...)
	return append(b, frame...)
}

func appendRaw(b, line []byte) []byte {
	return appendString(append(b, `,"raw":`...), line)
}

func appendString(b, text []byte) []byte {
	s, _ := json.Marshal(string(text)) // invalid UTF-8 becomes U+FFFD
	return append(b, s...)
}

// noteRequestError marks the transport's word that a request's answer
// cannot come (its POST got HTTP 500, its stream ended early, ...).
const noteRequestError = "request-error"

func appendNote(b []byte, note string) []byte {
	if note == "" {
		return b
	}
	b = append(b, `,"note":"`...)
	b = append(b, note...)
	return append(b, '"')
}

// appendViolations adds "violations": the kinds are fixed ASCII names.
func appendViolations(b []byte, kinds []string) []byte {
	if len(kinds) == 0 {
		return b
	}
	b = append(b, `,"violations":[`...)
	for i, k := range kinds {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), k...), '"')
	}
	return append(b, ']')
}

func hasNewline(b []byte) bool {
	for _, c := range b {
		if c == '\n' || c == '\r' {
			return true
		}
	}
	return false
}
