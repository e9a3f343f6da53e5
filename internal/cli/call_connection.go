package cli

import (
	"strconv"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// What `call` reports about everything else on the connection: duplicate
// responses, lines that are not JSON, oversize frames, malformed messages
// and protocol violations. Counts are exact; only the first few of each
// are kept, each with at most reportFrameBytes of its frame.
const (
	reportFirst      = 5
	reportFrameBytes = 200
)

// counted is a count and the first few of what it counts.
type counted[T any] struct {
	Count int `json:"count"`
	First []T `json:"first"`
}

func newCounted[T any]() counted[T] { return counted[T]{First: []T{}} }

// add counts one more and keeps it when it is among the first few; make
// builds it only then.
func (c *counted[T]) add(build func() T) {
	c.Count++
	if len(c.First) < reportFirst {
		c.First = append(c.First, build())
	}
}

// seen is one kept occurrence. AtMs is relative to when the call was
// sent: negative for what came before it (in the handshake or tools/list).
type seen struct {
	at   time.Time
	AtMs float64 `json:"atMs"`
	// Frame is the start of the frame or line, as text.
	Frame string `json:"frame"`
	// Size is its whole length in bytes.
	Size int `json:"size"`
	// Why says what was wrong with a malformed message.
	Why string `json:"why,omitempty"`
}

// seenViolation is one protocol violation as the report lists it.
type seenViolation struct {
	seen
	Kind session.ViolationKind `json:"kind"`
	// ID is the id or progressToken the frame named, as JSON text.
	ID     string `json:"id,omitempty"`
	Detail string `json:"detail"`
	// OfCall says the violation concerns the call itself.
	OfCall bool `json:"ofCall"`

	seq uint64
}

// connectionLog is what the recorder keeps of those events. Guarded by
// recorder.mu.
type connectionLog struct {
	duplicates map[uint64]*counted[seen] // by the request's Seq
	noise      counted[seen]
	oversize   counted[seen]
	malformed  counted[seen]
	violations counted[seenViolation]
}

func newConnectionLog() connectionLog {
	return connectionLog{duplicates: map[uint64]*counted[seen]{}, noise: newCounted[seen](),
		oversize: newCounted[seen](), malformed: newCounted[seen](), violations: newCounted[seenViolation]()}
}

// apply keeps e if it is one of the connection's events, and reports
// whether it was.
func (l *connectionLog) apply(e session.Event) bool {
	switch e := e.(type) {
	case session.DuplicateArrived:
		c := l.duplicates[e.Ref.Seq]
		if c == nil {
			c = &counted[seen]{First: []seen{}}
			l.duplicates[e.Ref.Seq] = c
		}
		c.add(func() seen { return seenFrame(e.At, e.Data, len(e.Data)) })
	case session.NoiseArrived:
		switch e.Cause {
		case session.NoiseOversize:
			l.oversize.add(func() seen { s := seenFrame(e.At, e.Line, e.Size); s.Why = e.Why; return s })
		case session.NoiseNotJSON:
			l.noise.add(func() seen { return seenFrame(e.At, e.Line, e.Size) })
		case session.NoiseBOM:
			// A note that the next frame came behind a byte-order mark, which
			// was stripped; the frame itself was used.
		default:
			l.malformed.add(func() seen { s := seenFrame(e.At, e.Line, e.Size); s.Why = e.Why; return s })
		}
	case session.Violation:
		l.violations.add(func() seenViolation {
			return seenViolation{seen: seenFrame(e.At, e.Frame, e.Size), Kind: e.Kind, ID: e.ID, Detail: e.Detail, seq: e.Ref.Seq}
		})
	default:
		return false
	}
	return true
}

func seenFrame(at time.Time, data []byte, size int) seen {
	return seen{at: at, Frame: string(data[:min(len(data), reportFrameBytes)]), Size: size}
}

// connectionReport is the part of the call's report that connectionLog
// fills.
type connectionReport struct {
	Duplicates counted[seen]          `json:"duplicates"`
	Noise      counted[seen]          `json:"noise"`
	Oversize   counted[seen]          `json:"oversize"`
	Malformed  counted[seen]          `json:"malformed"`
	Violations counted[seenViolation] `json:"violations"`
}

// report is the log as of now, its times counted from start, the call's
// duplicates only.
func (l *connectionLog) report(seq uint64, start time.Time) connectionReport {
	stamp := func(c counted[seen]) counted[seen] {
		out := counted[seen]{Count: c.Count, First: make([]seen, len(c.First))}
		for i, s := range c.First {
			s.AtMs = ms(s.at.Sub(start))
			out.First[i] = s
		}
		return out
	}
	r := connectionReport{Duplicates: newCounted[seen](), Noise: stamp(l.noise), Oversize: stamp(l.oversize),
		Malformed: stamp(l.malformed), Violations: counted[seenViolation]{Count: l.violations.Count, First: []seenViolation{}}}
	if d := l.duplicates[seq]; d != nil {
		r.Duplicates = stamp(*d)
	}
	for _, v := range l.violations.First {
		v.AtMs = ms(v.at.Sub(start))
		v.OfCall = v.seq == seq && seq != 0
		r.Violations.First = append(r.Violations.First, v)
	}
	return r
}

// textWarnings flags the frames and words that hold invalid UTF-8.
func (r connectionReport) textWarnings() []jsonWarning {
	var ws []jsonWarning
	for _, l := range []struct {
		name string
		c    counted[seen]
	}{{"duplicates", r.Duplicates}, {"noise", r.Noise}, {"oversize", r.Oversize}, {"malformed", r.Malformed}} {
		name := l.name
		for i, s := range l.c.First {
			ws = flagInvalidText(ws, "/"+name+"/first/"+strconv.Itoa(i)+"/frame", s.Frame)
			ws = flagInvalidText(ws, "/"+name+"/first/"+strconv.Itoa(i)+"/why", s.Why)
		}
	}
	for i, v := range r.Violations.First {
		ws = flagInvalidText(ws, "/violations/first/"+strconv.Itoa(i)+"/frame", v.Frame)
		ws = flagInvalidText(ws, "/violations/first/"+strconv.Itoa(i)+"/detail", v.Detail)
	}
	return ws
}
