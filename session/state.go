package session

import (
	"fmt"
	"slices"
	"testing"
)

// State is where a request is in its life:
//
//	pending → completed | failed | timed_out | cancelling → cancelled
//
// cancelling means we asked the peer to stop and are watching what it does
// for a settle window; every other state but pending is final.
type State uint8

const (
	Pending State = iota
	Completed
	Failed
	TimedOut
	Cancelling
	Cancelled
)

var stateNames = [...]string{"pending", "completed", "failed", "timed_out", "cancelling", "cancelled"}

// String implements fmt.Stringer with the names used on screen and in JSON.
func (s State) String() string { return enumName(stateNames[:], s) }

// enumName is what names calls v, "unknown" past their end: the String
// of the session's enums.
func enumName[E ~uint8](names []string, v E) string {
	if int(v) < len(names) {
		return names[v]
	}
	return "unknown"
}

// MarshalText implements encoding.TextMarshaler.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Final reports whether s can no longer change.
func (s State) Final() bool { return s != Pending && s != Cancelling }

// The legal moves of a request, the only ones setState makes. Nothing
// leaves a final state, and no state moves to itself.
var (
	// Ours: a cancel or timeout is watched before it is final, except
	// that a timeout is final at once.
	outgoingMoves = [...][]State{
		Pending:    {Completed, Failed, TimedOut, Cancelling},
		Cancelling: {Cancelled},
	}
	// The peer's: the handler answers, or the peer cancels it, or the
	// session ends under it. We never time them out or watch them.
	incomingMoves = [...][]State{
		Pending:    {Completed, Failed, Cancelled},
		Cancelling: nil,
	}
)

// The moves a task row has besides those of an outgoing request: the
// server may cancel a task itself, and a task whose cancel the server
// refused as already ended ends as it did.
var taskMoves = [...][]State{
	Pending:    {Cancelled},
	Cancelling: {Completed, Failed},
}

// legalTaskMove reports whether a task row may move so, beyond legalMove.
func legalTaskMove(from, to State) bool {
	return int(from) < len(taskMoves) && slices.Contains(taskMoves[from], to)
}

// legalMove reports whether a request may move from one state to another.
func legalMove(incoming bool, from, to State) bool {
	moves := outgoingMoves[:]
	if incoming {
		moves = incomingMoves[:]
	}
	return int(from) < len(moves) && slices.Contains(moves[from], to)
}

// panicOnIllegalMove: an illegal move is a bug in the session. Test
// binaries panic so that a test catches it; mcpoke itself logs it and
// keeps the state the request had.
var panicOnIllegalMove = testing.Testing()

// illegalMove reports a move that legalMove forbids. Callers hold s.mu.
func (s *Session) illegalMove(r *request, to State, reason string) {
	dir := "outgoing"
	if r.info.Incoming {
		dir = "incoming"
	}
	msg := fmt.Sprintf("illegal state change %v → %v of %s request %s %s (seq %d, reason %q)",
		r.info.State, to, dir, r.info.ID, r.info.Method, r.info.Seq, reason)
	if s.onIllegalMove != nil {
		s.onIllegalMove(msg)
		return
	}
	if panicOnIllegalMove {
		panic("session: " + msg)
	}
	s.log.Error("ignored an illegal request state change; this is a bug in mcpoke, please report it",
		"from", r.info.State.String(), "to", to.String(), "direction", dir, "id", r.info.ID.String(),
		"method", r.info.Method, "seq", r.info.Seq, "reason", reason)
}
