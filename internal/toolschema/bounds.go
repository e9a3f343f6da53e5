package toolschema

import (
	"errors"
	"fmt"
)

// Bounds on a schema from a server, checked before any work is done on
// it: a 5 MB schema took 15 s of CPU to compile and walk.
const (
	// MaxBytes is the largest schema mcpoke reads.
	MaxBytes = 256 << 10
	// MaxDepth is the deepest nesting of objects and arrays it reads.
	MaxDepth = 64
)

// ErrTooBig means a schema over MaxBytes or MaxDepth, refused unread.
var ErrTooBig = errors.New("schema over mcpoke's bounds")

// CheckBounds refuses a schema larger than MaxBytes or nested deeper
// than MaxDepth, saying which and by how much. It only scans the bytes.
func CheckBounds(schema []byte) error {
	if len(schema) > MaxBytes {
		return fmt.Errorf("%w: %d bytes, over the bound of %d", ErrTooBig, len(schema), MaxBytes)
	}
	depth, inString, escaped := 0, false, false
	for _, c := range schema {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > MaxDepth {
				return fmt.Errorf("%w: nested over %d deep", ErrTooBig, MaxDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}
