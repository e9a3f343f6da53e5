package session

import (
	"bytes"

	"github.com/mcpoke/mcpoke/transport"
)

// prettyWatch follows a JSON object a peer spread over several lines
// (pretty-printed), which the stdio transport delivers as noise line by
// line, to find the top-level "id" it answers. It keeps only a depth, so
// a peer cannot make it hold memory. Only the reader goroutine uses it.
type prettyWatch struct {
	active bool
	depth  int
}

// line takes the next noise or malformed line and returns the id of the
// object being followed when this line holds it.
func (w *prettyWatch) line(b []byte) (ID, bool) {
	t := bytes.TrimSpace(b)
	if !w.active {
		if string(t) == "{" {
			w.active, w.depth = true, 1
		}
		return ID{}, false
	}
	if w.depth == 1 {
		if id, ok := prettyID(t); ok {
			w.active = false
			return id, true
		}
	}
	change, _ := transport.Nesting(t)
	w.depth += change
	if w.depth <= 0 {
		w.active = false
	}
	return ID{}, false
}

// reset forgets the object followed: a real frame came between.
func (w *prettyWatch) reset() { w.active = false }

// prettyID reads a member line such as `"id": 3,`.
func prettyID(t []byte) (ID, bool) {
	rest, ok := bytes.CutPrefix(t, []byte(`"id"`))
	if !ok {
		return ID{}, false
	}
	rest, ok = bytes.CutPrefix(bytes.TrimSpace(rest), []byte(":"))
	if !ok {
		return ID{}, false
	}
	rest = bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(","))
	id, err := ParseID(rest)
	return id, err == nil
}
