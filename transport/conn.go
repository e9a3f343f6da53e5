// Package transport moves whole frames between mcpoke and an MCP peer.
//
// A frame is one JSON-RPC message as raw bytes, without its newline. A
// transport knows bytes, processes and connections; what a frame means
// (states, cancellation, errors, the rules of MCP) is the session's. It
// reads frames only where the wire itself needs it:
//   - every inbound line is checked to be one JSON value (jsonscan.Valid,
//     json.Valid's answer in one faster pass);
//     lines that are not JSON are delivered as noise, never as an error;
//   - Streamable HTTP, as a client, takes what a frame is from its sender
//     (Outgoing: id, method, the headers its era mirrors) and reads a
//     frame only when it was sent bare (Send); it reads the id of the
//     answers it receives, to end their request's stream, and the
//     initialize answer's protocol version;
//   - Streamable HTTP and SSE, as a server, read the id, method and
//     progress token of what they carry, to route each answer to the
//     stream of its request.
//
// # Server processes
//
// StartStdio starts each server in a session of its own, with no
// controlling terminal and its stdin, stdout and stderr on pipes: it cannot
// open /dev/tty to write on the user's screen, nor push keystrokes into
// the terminal's input with TIOCSTI.
//
// Clean-up reaches the server's family: its process group, its session,
// every process descended from those while its parent lives, and every
// process whose environment still carries the server's tag
// (MCPOKE_SERVER_TAG_<mcpoke pid>=<n>), which descendants inherit through
// setsid and double forks. On Linux mcpoke makes itself a child subreaper,
// so a descendant whose parent died is re-parented to mcpoke instead of
// init; CloseAll and KillAll end every such adopted child, tag or not.
// Close closes stdin, waits CloseGrace, sends SIGTERM to the family, waits
// CloseGrace again, then sends SIGKILL; what outlives the server itself
// gets SIGTERM and up to CloseGrace before SIGKILL.
//
// Out of reach:
//   - When mcpoke itself is SIGKILLed (or crashes) no clean-up runs. On
//     Linux the kernel then SIGKILLs the server process (Pdeathsig), but
//     not its descendants: they are re-parented to init (or to a
//     subreaper above mcpoke) and live on. Elsewhere the server lives on
//     too, and sees only its stdin close.
//   - A descendant that leaves the session, drops the tag from its
//     environment and loses its parent is ended only by CloseAll or
//     KillAll, not by its own server's Close.
//   - Outside Linux the family is the process group alone.
//   - A server runs as the user: it can still open the user's terminal
//     by its device name (/dev/pts/N) and write to it, and with
//     CAP_SYS_ADMIN push keys into it. Only running it as another user or
//     in a sandbox takes that away.
package transport

import (
	"errors"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// Message is one inbound item, in the order the transport saw it.
type Message struct {
	Kind wire.Kind
	// Data is the frame, the noise line or the stderr line, without its
	// newline. The receiver owns it.
	Data []byte
	// Size is the full length of an oversize frame.
	Size int
	// At is when a Tap took the item: the time on its wire record. Zero
	// from a Conn that is not a Tap.
	At time.Time
	// Tail holds the last bytes of an oversize frame, where an id written
	// after a huge result is found.
	Tail []byte
	// Why says what is wrong with a KindMalformed or KindOversize line, or
	// is BOMStripped on the note that precedes a line behind a UTF-8
	// byte-order mark.
	Why string
	// ID is the raw JSON id of the request a KindRequestError is about,
	// type kept (3 is not "3"); on a KindFrame, the id of the request on
	// whose own response stream it came (Streamable HTTP), which makes a
	// notification in it related to that request.
	ID []byte
	// RPCError is the JSON-RPC error object a KindRequestError carries
	// when the server refused the request with one that named no id.
	RPCError []byte
	// Valid says the transport checked that a KindFrame's Data is one JSON
	// value (jsonscan.Valid), so that the receiver need not scan it again.
	Valid bool
}

// BOMStripped is the Why of the KindNoise note delivered when a UTF-8
// byte-order mark before a line was stripped; the line itself follows.
const BOMStripped = "byte-order mark stripped"

// Conn is an open connection to a peer.
//
// Send may be called from many goroutines at once; Recv from one at a time.
// After Close, Recv returns ErrClosed (or the error that ended the
// connection) and Send returns an error.
type Conn interface {
	// Send writes one frame. It returns once the frame was handed to the
	// peer (written to its stdin, or queued on an in-memory pipe).
	Send(frame []byte) error
	// Recv blocks until the next inbound Message. When the connection
	// ends it returns the reason: ErrClosed after our own Close, or an
	// error such as *ExitError or ErrOutputClosed that says what happened
	// to the peer.
	Recv() (Message, error)
	// Close ends the connection and releases everything it holds,
	// including the server process. It is safe to call more than once.
	Close() error
}

// RequestStreamCloser is implemented by transports in which each request
// has its own channel, such as a Streamable HTTP response stream. Under
// protocol 2026-07-28 closing that stream is the cancellation; the session
// asks the transport first and falls back to notifications/cancelled when
// ok is false.
type RequestStreamCloser interface {
	CloseRequestStream(id []byte) (ok bool, err error)
}

// RequestStreams is implemented by a Conn that can say whether its
// requests have streams of their own now (Streamable HTTP, until it fell
// back to legacy SSE). Under protocol 2026-07-28 the session then cancels
// a request by ending its stream (CloseRequestStream) and sends no
// notifications/cancelled; without such streams (stdio) it notifies.
type RequestStreams interface {
	RequestStreamCloser
	HasRequestStreams() bool
}

// Outgoing is a frame and what its sender already knows of it, so that
// no transport parses the frame again to learn it (Sender). A sender
// that knows nothing leaves ID and Method empty, and a transport that
// needs them reads them from the frame (Send does that).
type Outgoing struct {
	// Frame is one JSON-RPC message, without its newline.
	Frame []byte
	// ID is the raw JSON text of a request's or a response's id, type
	// kept (3 is not "3"); "" for a notification.
	ID string
	// Method is a request's or a notification's method; "" for a
	// response.
	Method string
	// Mirror is what the request's protocol version repeats of its body
	// in HTTP headers; nil when it repeats nothing (every version before
	// 2026-07-28). Transports other than Streamable HTTP ignore it.
	Mirror *Mirror
}

// described reports whether the sender said what the frame is.
func (o Outgoing) described() bool { return o.ID != "" || o.Method != "" }

// Mirror is what a request of protocol 2026-07-28 or later repeats in the
// headers of its Streamable HTTP POST, so that intermediaries can route
// it without reading the body: the protocol version, the method (from
// Outgoing.Method), the name or URI the method names, and the Mcp-Param
// headers of a tools/call. The session, which wrote the body, fills it
// in; the transport only writes it out.
type Mirror struct {
	// Version is the protocol version declared in the request's _meta.
	Version string
	// Name is params.name, params.uri or params.taskId, as the method
	// has one (HasName); values are not yet header-encoded.
	Name    string
	HasName bool
	// Params are the Mcp-Param headers, by name, values not encoded.
	Params map[string]string
}

// Sender is implemented by a Conn that takes a frame with what its
// sender knows of it. SendOutgoing is Send; it also returns the time on
// the frame's wire record when the Conn stamps what it sends (a Tap): the
// moment the frame was written, which the session times late traffic
// from. It returns the zero time when the Conn does not stamp.
type Sender interface {
	SendOutgoing(o Outgoing) (at time.Time, err error)
}

// SenderOf is c's SendOutgoing, or, for a Conn without one, Send with a
// zero time: the metadata is then dropped, which a Conn that does not
// take it never needed.
func SenderOf(c Conn) Sender {
	if s, ok := c.(Sender); ok {
		return s
	}
	return plainSender{c}
}

type plainSender struct{ c Conn }

func (p plainSender) SendOutgoing(o Outgoing) (time.Time, error) {
	return time.Time{}, p.c.Send(o.Frame)
}

// DirectReceiver is implemented by a Conn that can hand its frames to the
// receiver on the goroutine that read them, instead of passing them to
// Recv's caller: on a small machine each goroutine hand-off per message
// costs more than the message (waking a goroutine while a CPU is idle
// wakes an OS thread that competes with the server for the CPUs).
//
// After ReceiveDirect(f) returns true, every item Recv would have given
// (a stdio server's frames, noise and stderr lines) goes to f instead, on
// the Conn's own readers: the items of one source (stdout, stderr) in
// order, one at a time, but two sources may call f at once, as they
// raced to Recv's queue before. Recv is left with the end of the stream.
// An exit (*ExitError) comes only after the last call of f returned;
// ErrOutputClosed only after the last of the frames, though a stderr line
// may still follow it, as it could follow it through Recv; ErrClosed
// after our own Close may come while a call is under way (Close waits for
// it), and none starts once Close returned. f runs synchronously; while
// it is slow the Conn reads ahead a bounded buffer per source, as it did
// for a slow Recv (backpressure). ReceiveDirect returns false, and changes
// nothing, when the Conn already gave an item through Recv (the order
// would be lost) or already has a receiver: the caller then reads
// everything with Recv as before.
type DirectReceiver interface {
	ReceiveDirect(f func(Message)) bool
}

// StderrTail is implemented by transports that keep the last lines a
// server wrote to stderr, for error messages.
type StderrTail interface {
	StderrTail(n int) []string
}

// ErrClosed is returned by Recv and Send after Close was called on this side.
var ErrClosed = errors.New("transport: connection closed")
