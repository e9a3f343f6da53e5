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
		s.handleFrame(m.Data, at)
	case wire.KindNoise:
		s.noise(m.Data, 0, "not JSON", at)
	case wire.KindOversize:
		s.noise(m.Data, m.Size, "frame over the size limit, skipped", at)
	case wire.KindStderr:
		s.mu.Lock()
		s.emit(StderrLine{At: at, Line: string(m.Data)})
		s.mu.Unlock()
	}
}

func (s *Session) noise(line []byte, oversize int, why string, at time.Time) {
	s.mu.Lock()
	s.emit(NoiseArrived{At: at, Line: line, Oversize: oversize, Why: why})
	s.mu.Unlock()
	s.log.Debug("noise", "why", why, "line", truncate(line, 200))
}

// handleFrame dispatches one frame: a message, or a batch (2025-03-26).
func (s *Session) handleFrame(frame []byte, at time.Time) {
	trimmed := bytes.TrimSpace(frame)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(trimmed, &batch); err != nil || len(batch) == 0 {
			s.noise(frame, 0, "invalid batch", at)
			return
		}
		for _, m := range batch {
			s.handleMessage(m, at)
		}
		return
	}
	s.handleMessage(frame, at)
}

func (s *Session) handleMessage(frame []byte, at time.Time) {
	if !json.Valid(frame) {
		s.noise(frame, 0, "not JSON", at)
		return
	}
	var m wireMessage
	if err := parseEnvelope(frame, &m); err != nil {
		s.noise(frame, 0, "not a JSON-RPC message: "+err.Error(), at)
		return
	}
	switch {
	case m.isResponse():
		s.handleResponse(&m, frame, at)
	case m.isRequest():
		s.handleRequest(&m)
	case m.isNotification():
		s.handleNotification(&m, frame, at)
	default:
		s.noise(frame, 0, "not a JSON-RPC request, response or notification", at)
	}
}

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
