package proxy

import (
	"encoding/json"
	"fmt"
)

// A config file is edited in place: the value spans of the few members
// that change are found by this small JSONC scanner (comments, trailing
// commas), and only those bytes are replaced, so that every comment,
// field and space the file had stays as it was.

// member is one member of a JSON object: its key, and where its value
// starts and ends in the file.
type member struct {
	key        string
	start, end int
}

type jsoncScanner struct {
	b []byte
	i int
}

func (s *jsoncScanner) errorf(format string, a ...any) error {
	line := 1
	for _, c := range s.b[:min(s.i, len(s.b))] {
		if c == '\n' {
			line++
		}
	}
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, a...))
}

// space skips white space and comments.
func (s *jsoncScanner) space() error {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			s.i++
		case c == '/' && s.i+1 < len(s.b) && s.b[s.i+1] == '/':
			for s.i < len(s.b) && s.b[s.i] != '\n' {
				s.i++
			}
		case c == '/' && s.i+1 < len(s.b) && s.b[s.i+1] == '*':
			end := -1
			for j := s.i + 2; j+1 < len(s.b); j++ {
				if s.b[j] == '*' && s.b[j+1] == '/' {
					end = j + 2
					break
				}
			}
			if end < 0 {
				return s.errorf("a comment that never ends")
			}
			s.i = end
		default:
			return nil
		}
	}
	return nil
}

// value skips one value and returns its span.
func (s *jsoncScanner) value() (start, end int, err error) {
	if err := s.space(); err != nil {
		return 0, 0, err
	}
	start = s.i
	if s.i >= len(s.b) {
		return 0, 0, s.errorf("a value is missing at the end")
	}
	switch s.b[s.i] {
	case '"':
		err = s.str()
	case '{', '[':
		err = s.container()
	default:
		for s.i < len(s.b) && !isDelim(s.b[s.i]) {
			s.i++
		}
		if s.i == start {
			return 0, 0, s.errorf("unexpected %q", s.b[s.i])
		}
	}
	return start, s.i, err
}

func isDelim(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/'
}

func (s *jsoncScanner) str() error {
	for s.i++; s.i < len(s.b); s.i++ {
		switch s.b[s.i] {
		case '\\':
			s.i++
		case '"':
			s.i++
			return nil
		}
	}
	return s.errorf("a string that never ends")
}

func (s *jsoncScanner) container() error {
	close := byte('}')
	if s.b[s.i] == '[' {
		close = ']'
	}
	s.i++
	for {
		if err := s.space(); err != nil {
			return err
		}
		if s.i < len(s.b) && s.b[s.i] == close {
			s.i++
			return nil
		}
		if close == '}' {
			if _, _, err := s.value(); err != nil { // the key
				return err
			}
			if err := s.space(); err != nil {
				return err
			}
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return s.errorf("':' expected after a key")
			}
			s.i++
		}
		if _, _, err := s.value(); err != nil {
			return err
		}
		if err := s.space(); err != nil {
			return err
		}
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		if s.i < len(s.b) && s.b[s.i] == close {
			s.i++
			return nil
		}
		return s.errorf("',' or '%c' expected", close)
	}
}

// members lists the members of the object whose '{' is at start.
func members(b []byte, start int) ([]member, error) {
	s := &jsoncScanner{b: b, i: start}
	if start >= len(b) || b[start] != '{' {
		return nil, s.errorf("an object was expected")
	}
	s.i++
	var out []member
	for {
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.i < len(b) && b[s.i] == '}' {
			return out, nil
		}
		ks, ke, err := s.value()
		if err != nil {
			return nil, err
		}
		var key string
		if json.Unmarshal(b[ks:ke], &key) != nil {
			return nil, s.errorf("a key is not a string")
		}
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.i >= len(b) || b[s.i] != ':' {
			return nil, s.errorf("':' expected after %q", key)
		}
		s.i++
		vs, ve, err := s.value()
		if err != nil {
			return nil, err
		}
		out = append(out, member{key: key, start: vs, end: ve})
		if err := s.space(); err != nil {
			return nil, err
		}
		if s.i < len(b) && b[s.i] == ',' {
			s.i++
			continue
		}
		if s.i < len(b) && b[s.i] == '}' {
			return out, nil
		}
		return nil, s.errorf("',' or '}' expected")
	}
}

// topObject is where the document's object starts.
func topObject(b []byte) (int, error) {
	s := &jsoncScanner{b: b}
	if len(b) >= 3 && string(b[:3]) == "\xef\xbb\xbf" {
		s.i = 3
	}
	if err := s.space(); err != nil {
		return 0, err
	}
	start, _, err := s.value()
	if err != nil {
		return 0, err
	}
	if b[start] != '{' {
		return 0, fmt.Errorf("the config is not a JSON object")
	}
	return start, nil
}

func find(ms []member, key string) (member, bool) {
	for _, m := range ms {
		if m.key == key {
			return m, true
		}
	}
	return member{}, false
}
