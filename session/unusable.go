package session

import (
	"bytes"
	"encoding/json"
	"regexp"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// failPending fails our pending request id at once, saying why: the peer
// sent something for it that can never be delivered, so waiting for the
// timeout would only hide the fault. Anything but a pending outgoing
// request is left alone; it reports whether it failed one.
func (s *Session) failPending(id ID, why string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.table.outgoing(id.raw)
	if r == nil || r.info.State != Pending {
		return false
	}
	r.info.w().Failure = why
	s.setState(r, Failed, why)
	return true
}

// handleUnusable deals with a line the transport could not use: when it
// names one of our pending requests, that request fails with what the
// peer sent wrong; the line is recorded as noise either way.
func (s *Session) handleUnusable(m transport.Message, cause NoiseCause, at time.Time) {
	id, ok := idIn(m.Data)
	if !ok && m.Tail != nil {
		id, ok = idInTail(m.Tail)
	}
	if !ok && m.Kind == wire.KindMalformed {
		id, ok = s.pretty.line(m.Data)
	}
	why := m.Why
	if ok && s.failPending(id, "the server's response was unusable: "+why) {
		why += "; request " + id.String() + " failed"
	}
	s.noise(m.Data, m.Size, cause, why, at)
}

// idIn finds the id of a JSON-RPC object from its start, which may be cut
// anywhere: the value of the top-level key "id", its JSON type kept.
func idIn(b []byte) (ID, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ID{}, false
	}
	depth, key, isID := 1, true, false
	for {
		t, err := dec.Token()
		if err != nil {
			return ID{}, false
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				if depth == 1 && isID {
					return ID{}, false
				}
				depth++
				continue
			}
			if depth--; depth == 0 {
				return ID{}, false
			}
			key = key || depth == 1
			continue
		}
		switch {
		case depth != 1:
		case key:
			key, isID = false, t == "id"
		case isID:
			switch v := t.(type) {
			case json.Number:
				return ID{raw: string(v)}, true
			case string:
				return StringID(v), true
			}
			return ID{}, false
		default:
			key = true
		}
	}
}

// tailIDPattern matches an id that is the last member of the object the
// line ends with: the final "}" closes the top level, so the id is its.
var tailIDPattern = regexp.MustCompile(`(?:^|[^\\])"id"\s*:\s*(-?[0-9][0-9.eE+-]*|"(?:[^"\\]|\\.)*")\s*\}\s*$`)

// idInTail finds the id written last in a frame, from the frame's end.
func idInTail(tail []byte) (ID, bool) {
	m := tailIDPattern.FindSubmatch(tail)
	if m == nil {
		return ID{}, false
	}
	id, err := ParseID(m[1])
	return id, err == nil
}
