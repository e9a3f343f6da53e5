package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/jsonscan"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// startReading starts the session's reader. When the transport can hand
// what it reads over on the goroutine that read it (a stdio server's
// stdout and stderr, transport.DirectReceiver), it is handled right there:
// a response then wakes only the goroutine waiting for it, not a reader of
// ours in between. It is asked before the reader starts, so before the
// transport delivered anything through Recv.
func (s *Session) startReading() {
	in := &inbound{s: s}
	if d, ok := s.conn.(transport.DirectReceiver); ok {
		d.ReceiveDirect(in.direct)
	}
	go in.read()
}

// inbound makes the session's one reader out of several goroutines: the
// loop on Recv (the end of the stream, or everything when the transport
// has no direct path) and the transport's readers on the direct path (a
// stdio server's stdout and stderr). mu makes them take turns, so that
// handleInbound and what it touches (pretty, relatedID, cancelling
// incoming handlers, ...) still see one reader at a time; frames among
// themselves keep the transport's order.
type inbound struct {
	s  *Session
	mu sync.Mutex
	// ended is set once the stream ended: a direct item that comes after
	// is dropped, as Recv drops what is queued after Close.
	ended bool
}

// read takes every inbound item Recv gives, in order, until the transport
// ends.
func (in *inbound) read() {
	s := in.s
	for {
		m, err := s.conn.Recv()
		in.mu.Lock()
		if err != nil {
			// The transport ends its stream only after the last direct
			// item returned, except ErrClosed after Close, for which
			// ended stops one still racing in.
			in.ended = true
			if errors.Is(err, io.EOF) {
				s.drain(s.cfg.DrainOnEOF)
			}
			s.shutdown(err)
			in.mu.Unlock()
			return
		}
		s.handleInbound(m)
		in.mu.Unlock()
	}
}

// direct takes an item on the transport's own reader.
func (in *inbound) direct(m transport.Message) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ended {
		return
	}
	in.s.handleInbound(m)
}

// handleInbound takes one item. Its arrival time is the time on its wire
// record when the transport is a tap, so that the session times it from
// the same reading as the wire log and transcripts.
func (s *Session) handleInbound(m transport.Message) {
	at := m.At
	if at.IsZero() {
		at = s.clock.Now()
	}
	switch m.Kind {
	case wire.KindFrame:
		s.pretty.reset()
		s.relatedID = m.ID
		s.handleFrame(m.Data, at, m.Valid)
		s.relatedID = nil
	case wire.KindNoise:
		if m.Why == transport.BOMStripped {
			s.noise(m.Data, 0, NoiseBOM, m.Why, at)
			return
		}
		if id, ok := s.pretty.line(m.Data); ok {
			why := "the server's response was pretty-printed over several lines; on stdio each message must be one line with no embedded newlines"
			if s.failPending(id, why) {
				s.noise(m.Data, 0, NoiseMalformed, why+"; request "+id.String()+" failed", at)
				return
			}
		}
		s.noise(m.Data, 0, NoiseNotJSON, "not JSON", at)
	case wire.KindOversize:
		s.handleUnusable(m, NoiseOversize, at)
	case wire.KindMalformed:
		s.handleUnusable(m, NoiseMalformed, at)
	case wire.KindStderr:
		s.mu.Lock()
		s.emit(StderrLine{At: at, Line: string(m.Data)})
		s.mu.Unlock()
	case wire.KindRequestError:
		s.requestUndeliverable(m, at)
	case wire.KindHTTP:
		// The tap showed it in the wire log and transcript; nothing to decide.
	}
}

// requestUndeliverable fails the pending request whose answer the
// transport says cannot come (its POST got HTTP 500, its stream ended
// before the response, ...), with the JSON-RPC error the server gave
// when it gave one. A request whose stream broke under protocol
// 2026-07-28 is lost: it must be re-issued. For no such request it is
// noise.
func (s *Session) requestUndeliverable(m transport.Message, at time.Time) {
	id, why := m.ID, string(m.Data)
	s.mu.Lock()
	r := s.table.outgoing(string(id))
	if r == nil || r.info.State != Pending {
		s.mu.Unlock()
		s.noise([]byte(why), 0, NoiseNotJSONRPC, "transport error for no pending request "+string(id), at)
		return
	}
	failure := why
	if len(m.RPCError) > 0 {
		if e, bad := parseErrorObject(m.RPCError); bad == "" {
			r.info.Error = e
			failure = e.Error()
		}
	}
	if m.Why == transport.StreamBroke {
		r.info.w().LostAt = at
		failure = lostText(at.Sub(r.info.Started))
	}
	r.info.w().Failure = failure
	s.setState(r, Failed, failure)
	s.mu.Unlock()
	s.log.Info("request failed in the transport", "id", string(id), "why", why)
}

// noise records an unusable line; oversize is the full length of a frame
// over the limit, whose line holds only its start.
func (s *Session) noise(line []byte, oversize int, cause NoiseCause, why string, at time.Time) {
	size := max(oversize, len(line))
	s.mu.Lock()
	s.emit(NoiseArrived{At: at, Line: kept(line), Oversize: oversize, Size: size, Cause: cause, Why: why})
	s.mu.Unlock()
	s.log.Debug("noise", "why", why, "line", truncate(line, 200))
}

// handleFrame dispatches one frame: a message, or a batch (2025-03-26).
// valid says the transport already checked it is JSON (Message.Valid):
// each frame is scanned for validity once.
func (s *Session) handleFrame(frame []byte, at time.Time, valid bool) {
	trimmed := bytes.TrimSpace(frame)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(trimmed, &batch); err != nil || len(batch) == 0 {
			s.noise(frame, 0, NoiseNotJSONRPC, "invalid batch", at)
			return
		}
		s.checkBatch(frame)
		for _, m := range batch {
			s.handleMessage(m, at, true)
		}
		return
	}
	s.handleMessage(frame, at, valid)
}

func (s *Session) handleMessage(frame []byte, at time.Time, valid bool) {
	if !valid && !jsonscan.Valid(frame) {
		s.noise(frame, 0, NoiseNotJSON, "not JSON", at)
		return
	}
	var m wireMessage
	if err := parseEnvelope(frame, &m); err != nil {
		s.noise(frame, 0, NoiseNotJSONRPC, "not a JSON-RPC message: "+err.Error(), at)
		return
	}
	kinds, details := envelopeViolations(&m)
	if len(kinds) > 0 && !m.isResponse() {
		s.mu.Lock()
		for i, k := range kinds {
			s.violate(nil, k, m.ID, frame, details[i])
		}
		s.mu.Unlock()
	}
	switch {
	case m.isResponse():
		s.handleResponse(&m, frame, kinds, details, at)
	case m.isRequest():
		s.flagServerRequest(&m, frame)
		s.handleRequest(&m, at)
	case m.isNotification():
		s.handleNotification(&m, frame, at)
	default:
		s.noise(frame, 0, NoiseNotJSONRPC, "not a JSON-RPC request, response or notification", at)
	}
}

// checkBatch flags a batch under a protocol version without batches; its
// messages are handled all the same, so that what the peer meant is seen.
func (s *Session) checkBatch(frame []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.protocolVersion(); !BatchesAllowed(v) {
		s.violate(nil, ViolationBatch, nil, frame, "a batch (JSON array of messages) under protocol "+v+
			", which allows only single messages; its messages were handled one by one")
	}
}

// MaxKept is how much of an unusable, stray, late or duplicate frame its
// event keeps: a flooding peer must not make mcpoke hold its frames.
const MaxKept = 4 << 10

// kept is a copy of b's first MaxKept bytes: a sub-slice would pin the
// whole frame.
func kept(b []byte) []byte { return bytes.Clone(b[:min(len(b), MaxKept)]) }

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// drain gives incoming handlers up to d to finish and answer.
func (s *Session) drain(d time.Duration) {
	if d <= 0 {
		return
	}
	done := make(chan struct{})
	go func() { s.handlers.Wait(); close(done) }()
	expired := make(chan struct{})
	t := s.clock.AfterFunc(d, func() { close(expired) })
	defer t.Stop()
	select {
	case <-done:
	case <-expired:
		// shutdown cancels the handlers next; the waiter ends with them.
	}
}
