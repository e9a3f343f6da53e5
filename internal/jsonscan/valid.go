package jsonscan

import "encoding/json"

// maxTrackedDepth is how deep Valid follows nesting itself; deeper text
// is left to json.Valid, which allows 10,000 levels.
const maxTrackedDepth = 64

// Valid reports whether b is one JSON value, as json.Valid does, in one
// pass several times faster: every frame a proxy records is checked.
func Valid(b []byte) bool {
	var objects uint64 // bit d: the container at depth d+1 is an object
	depth := 0
	i := SkipSpace(b, 0)
	for {
		// A value starts at b[i].
		if i >= len(b) {
			return false
		}
		ok := true
		switch c := b[i]; {
		case c == '{' || c == '[':
			if depth == maxTrackedDepth {
				return json.Valid(b)
			}
			i = SkipSpace(b, i+1)
			if c == '{' {
				objects |= 1 << depth
			} else {
				objects &^= 1 << depth
			}
			depth++
			closing := byte(']')
			if c == '{' {
				closing = '}'
			}
			if i < len(b) && b[i] == closing {
				i++
				depth--
				break // an empty container is a whole value
			}
			if c == '{' {
				if i, ok = key(b, i); !ok {
					return false
				}
			}
			continue // its first member's value
		case c == '"':
			i, ok = stringEnd(b, i)
		case c == '-' || '0' <= c && c <= '9':
			i, ok = numberEnd(b, i)
		case c == 't':
			i, ok = literalEnd(b, i, "true")
		case c == 'f':
			i, ok = literalEnd(b, i, "false")
		case c == 'n':
			i, ok = literalEnd(b, i, "null")
		default:
			return false
		}
		if !ok {
			return false
		}
		// After a value: close containers until another value is due.
		for {
			i = SkipSpace(b, i)
			if depth == 0 {
				return i == len(b)
			}
			if i >= len(b) {
				return false
			}
			object := objects>>(depth-1)&1 == 1
			if b[i] == ',' {
				i = SkipSpace(b, i+1)
				if object {
					if i, ok = key(b, i); !ok {
						return false
					}
				}
				break
			}
			if object && b[i] == '}' || !object && b[i] == ']' {
				i++
				depth--
				continue
			}
			return false
		}
	}
}

// key reads `"key" :` and the space after it, at b[i].
func key(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := stringEnd(b, i)
	if !ok {
		return i, false
	}
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return SkipSpace(b, i+1), true
}

// stringEnd returns the index after the string at b[i].
func stringEnd(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); {
		switch c := b[j]; {
		case c == '"':
			return j + 1, true
		case c == '\\':
			if j+1 >= len(b) {
				return j, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
					return j, false
				}
				j += 6
			default:
				return j, false
			}
		case c < 0x20:
			return j, false
		default:
			j++
		}
	}
	return len(b), false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// numberEnd returns the index after the number at b[i].
func numberEnd(b []byte, i int) (int, bool) {
	j := i
	if b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && '1' <= b[j] && b[j] <= '9':
		j = digitsEnd(b, j)
	default:
		return j, false
	}
	if j < len(b) && b[j] == '.' {
		if j+1 >= len(b) || b[j+1] < '0' || b[j+1] > '9' {
			return j, false
		}
		j = digitsEnd(b, j+1)
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j >= len(b) || b[j] < '0' || b[j] > '9' {
			return j, false
		}
		j = digitsEnd(b, j)
	}
	return j, true
}

func digitsEnd(b []byte, j int) int {
	for j < len(b) && '0' <= b[j] && b[j] <= '9' {
		j++
	}
	return j
}

func literalEnd(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}
