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
		s.handleFrame(m.Data)
	case wire.KindNoise:
		s.noise(m.Data, 0, "not JSON")
	case wire.KindOversize:
		s.noise(m.Data, m.Size, "frame over the size limit, skipped")
	case wire.KindStderr:
		s.mu.Lock()
		s.emit(StderrLine{At: s.clock.Now(), Line: string(m.Data)})
		s.mu.Unlock()
	case wire.KindRequestError:
		s.requestUndeliverable(m.ID, string(m.Data))
	case wire.KindHTTP:
		// The tap showed it in the wire log and transcript; nothing to decide.
	}
}

// requestUndeliverable fails the pending request with raw id whose answer
// the transport says cannot come (its POST got HTTP 500, its stream ended
// before the response, ...). For no such request it is noise.
func (s *Session) requestUndeliverable(id []byte, why string) {
	s.mu.Lock()
	r := s.table.outgoing(string(id))
	if r == nil || r.info.State != Pending {
		s.mu.Unlock()
		s.noise([]byte(why), 0, "transport error for no pending request "+string(id))
		return
	}
	r.info.Failure = why
	s.setState(r, Failed, why)
	s.mu.Unlock()
	s.log.Info("request failed in the transport", "id", string(id), "why", why)
}

func (s *Session) noise(line []byte, oversize int, why string) {
	s.mu.Lock()
	s.emit(NoiseArrived{At: s.clock.Now(), Line: line, Oversize: oversize, Why: why})
	s.mu.Unlock()
	s.log.Debug("noise", "why", why, "line", truncate(line, 200))
}

// handleFrame dispatches one frame: a message, or a batch (2025-03-26).
func (s *Session) handleFrame(frame []byte) {
	trimmed := bytes.TrimSpace(frame)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(trimmed, &batch); err != nil || len(batch) == 0 {
			s.noise(frame, 0, "invalid batch")
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
		s.noise(frame, 0, "not JSON")
		return
	}
	var m wireMessage
	if err := parseEnvelope(frame, &m); err != nil {
		s.noise(frame, 0, "not a JSON-RPC message: "+err.Error())
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
		s.noise(frame, 0, "not a JSON-RPC request, response or notification")
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
