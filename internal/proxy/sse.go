package proxy

import (
	"bytes"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// sseSplitter reads an event stream as it passes, after the bytes went
// on, and records each event's data as a frame from the server. Fields
// other than data and event are ignored; data is kept up to headKeep.
type sseSplitter struct {
	now  func() time.Time
	emit func(wire.Record)

	line      []byte // the current line, up to headKeep
	lineSize  int
	pendingCR bool

	data      []byte
	dataSize  int
	hasData   bool
	eventType string
}

func (s *sseSplitter) feed(p []byte) {
	for _, c := range p {
		if s.pendingCR {
			s.pendingCR = false
			if c == '\n' {
				continue // CRLF: the CR ended the line
			}
		}
		switch c {
		case '\r':
			s.pendingCR = true
			s.endLine()
		case '\n':
			s.endLine()
		default:
			s.lineSize++
			if len(s.line) < headKeep {
				s.line = append(s.line, c)
			}
		}
	}
}

func (s *sseSplitter) endLine() {
	line := s.line
	s.line, s.lineSize = s.line[:0], 0
	if len(line) == 0 {
		s.dispatch()
		return
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "data":
		if s.hasData {
			s.data = append(s.data, '\n')
			s.dataSize++
		}
		s.hasData = true
		s.dataSize += len(value)
		if room := headKeep - len(s.data); room > 0 {
			s.data = append(s.data, value[:min(room, len(value))]...)
		}
	case "event":
		s.eventType = string(value)
	}
}

func (s *sseSplitter) dispatch() {
	if !s.hasData {
		s.eventType = ""
		return
	}
	r := wire.Record{At: s.now(), Dir: wire.In, Data: bytes.Clone(s.data), Size: s.dataSize}
	switch {
	case s.eventType != "" && s.eventType != "message":
		// Legacy SSE's endpoint event, or another that carries no message.
		r.Kind = wire.KindHTTP
		r.Data = append([]byte("SSE event "+s.eventType+": "), r.Data...)
	case s.dataSize == 0:
		// A priming event (an id for resuming, no message).
		r.Kind = wire.KindHTTP
		r.Data = []byte("SSE event with empty data (priming)")
	case s.dataSize > len(s.data):
		r.Kind = wire.KindOversize
	default:
		r.Kind, r.Why = transport.Classify(r.Data)
	}
	s.data, s.dataSize, s.hasData, s.eventType = s.data[:0], 0, false, ""
	if cap(s.data) > 64<<10 {
		s.data = nil
	}
	s.emit(r)
}
