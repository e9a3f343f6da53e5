// Package wire holds the record of one item on the wire: what it was, which
// way it went and when. transport produces records, session reads kinds, and
// ui, transcript and bench read records; keeping the type in this leaf lets
// each of them see the wire without importing a layer it must not reach.
package wire

import (
	"strconv"
	"time"
)

// Direction says which way a tapped item went.
type Direction uint8

const (
	// Out is a frame we sent.
	Out Direction = iota
	// In is an item we received: a frame, noise, an oversize report or a
	// stderr line (see Record.Kind).
	In
)

// String implements fmt.Stringer.
func (d Direction) String() string {
	if d == Out {
		return "out"
	}
	return "in"
}

// Kind says what an item on the wire carries.
type Kind uint8

const (
	// KindFrame is one JSON-RPC message.
	KindFrame Kind = iota
	// KindNoise is a line on the message stream that is not a JSON value.
	KindNoise
	// KindOversize reports a frame over the size limit; Data holds its first
	// bytes and Size its full length. The frame itself was skipped.
	KindOversize
	// KindStderr is one line the server wrote to its stderr.
	KindStderr
	// KindMalformed is a line that starts like a JSON-RPC frame but cannot
	// be used: invalid UTF-8, bytes after the JSON value, nesting too deep,
	// or JSON cut short (a message spread over several lines). Why says
	// which; the line is never delivered as a frame.
	KindMalformed
	// KindHTTP is an HTTP fact a person debugging needs (a POST's status
	// and content type, a stream opened or closed, an SSE id, retry or
	// comment, a reconnect, DELETE): one line of text, credentials
	// redacted. It carries no message.
	KindHTTP
	// KindRequestError: the transport could not deliver the answer to
	// the request whose raw JSON id travels with it (transport.Message.ID);
	// Data says why, e.g. the POST got HTTP 500.
	KindRequestError
	// KindRelay is an event of mcpoke proxy's relay that is no message:
	// the host closed its input, the server exited. One line of text.
	KindRelay
)

// String implements fmt.Stringer.
func (k Kind) String() string {
	switch k {
	case KindFrame:
		return "frame"
	case KindNoise:
		return "noise"
	case KindOversize:
		return "oversize"
	case KindStderr:
		return "stderr"
	case KindMalformed:
		return "malformed"
	case KindHTTP:
		return "http"
	case KindRequestError:
		return "request-error"
	case KindRelay:
		return "relay"
	}
	return "unknown"
}

// Record is one item that passed a tap.
type Record struct {
	// At carries Go's monotonic clock reading; Since(start) is exact even
	// if the wall clock jumps.
	At   time.Time
	Dir  Direction
	Kind Kind
	// Data must not be modified by observers; it is shared with the
	// session and with other observers. Observers may keep it: senders
	// never reuse a frame's buffer.
	Data []byte
	Size int
	// Why says what is wrong with a malformed or oversize line, or that a
	// byte-order mark was stripped; empty for ordinary items.
	Why string
	// Session names the host session a proxied HTTP record belongs to
	// (mcpoke proxy labels each Mcp-Session-Id s1, s2, ...): requests of
	// two sessions may use the same id. Empty elsewhere.
	Session string
}

// FormatSize says n bytes for people: "512 B", "4 KiB", "33 MiB". Sizes
// of frames appear in errors from several layers; one wording for all.
func FormatSize(n int) string {
	switch {
	case n < 1<<10:
		return strconv.Itoa(n) + " B"
	case n < 1<<20:
		return sizeIn(n, 1<<10, "KiB")
	}
	return sizeIn(n, 1<<20, "MiB")
}

// sizeIn is n in units of unit, to one decimal below ten units.
func sizeIn(n, unit int, name string) string {
	if n%unit == 0 || n >= 10*unit {
		return strconv.Itoa((n+unit/2)/unit) + " " + name
	}
	return strconv.FormatFloat(float64(n)/float64(unit), 'f', 1, 64) + " " + name
}
