package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// read is the session's one reader: it takes every inbound item in order
// until the transport ends.
func (s *Session) read() {
	for {
		m, err := s.conn.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				s.drain(s.cfg.DrainOnEOF)
			}
			s.shutdown(err)
			return
		}
		s.handleInbound(m)
	}
}

func (s *Session) handleInbound(m transport.Message) {
	switch m.Kind {
	case wire.KindFrame:
		s.pretty.reset()
		s.handleFrame(m.Data)
	case wire.KindNoise:
		if m.Why == transport.BOMStripped {
			s.noise(m.Data, 0, NoiseBOM, m.Why)
			return
		}
		if id, ok := s.pretty.line(m.Data); ok {
			why := "the server's response was pretty-printed over several lines; on stdio each message must be one line with no embedded newlines"
			if s.failPending(id, why) {
				s.noise(m.Data, 0, NoiseMalformed, why+"; request "+id.String()+" failed")
				return
			}
		}
		s.noise(m.Data, 0, NoiseNotJSON, "not JSON")
	case wire.KindOversize:
		s.handleUnusable(m, NoiseOversize)
	case wire.KindMalformed:
		s.handleUnusable(m, NoiseMalformed)
	case wire.KindStderr:
		s.mu.Lock()
		s.emit(StderrLine{At: s.clock.Now(), Line: string(m.Data)})
		s.mu.Unlock()
	}
}

// noise records an unusable line; oversize is the full length of a frame
// over the limit, whose line holds only its start.
func (s *Session) noise(line []byte, oversize int, cause NoiseCause, why string) {
	size := max(oversize, len(line))
	s.mu.Lock()
	s.emit(NoiseArrived{At: s.clock.Now(), Line: kept(line), Oversize: oversize, Size: size, Cause: cause, Why: why})
	s.mu.Unlock()
	s.log.Debug("noise", "why", why, "line", truncate(line, 200))
}

// handleFrame dispatches one frame: a message, or a batch (2025-03-26).
func (s *Session) handleFrame(frame []byte) {
	trimmed := bytes.TrimSpace(frame)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(trimmed, &batch); err != nil || len(batch) == 0 {
			s.noise(frame, 0, NoiseNotJSONRPC, "invalid batch")
			return
		}
		for _, m := range batch {
			s.handleMessage(m)
		}
		return
	}
	s.handleMessage(frame)
}

func (s *Session) handleMessage(frame []byte) {
	if !json.Valid(frame) {
		s.noise(frame, 0, NoiseNotJSON, "not JSON")
		return
	}
	var m wireMessage
	if err := parseEnvelope(frame, &m); err != nil {
		s.noise(frame, 0, NoiseNotJSONRPC, "not a JSON-RPC message: "+err.Error())
		return
	}
	switch {
	case m.isResponse():
		s.handleResponse(&m, frame)
	case m.isRequest():
		s.handleRequest(&m)
	case m.isNotification():
		s.handleNotification(&m, frame)
	default:
		s.noise(frame, 0, NoiseNotJSONRPC, "not a JSON-RPC request, response or notification")
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
