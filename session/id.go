package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/mcpoke/mcpoke/internal/jsonscan"
)

// ID is a JSON-RPC request id with its JSON type kept exactly: the number
// 3 and the string "3" are different ids. A server that keys its table by
// 3 ignores a cancel for "3", so we never convert one into the other.
type ID struct {
	raw string // compact JSON text: 3 or "3"
}

// IntID returns the number id n.
func IntID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// StringID returns the string id s.
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: string(b)}
}

// ErrInvalidID is returned by ParseID for anything but a string or number.
var ErrInvalidID = errors.New("request id must be a string or a number")

// ParseID reads an id from its JSON text.
func ParseID(raw []byte) (ID, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ID{}, ErrInvalidID
	}
	// One JSON string or number: its first byte says which, and the
	// whole is one value (Valid, without decoding the string).
	if c := raw[0]; c != '"' && c != '-' && (c < '0' || c > '9') || !jsonscan.Valid(raw) {
		return ID{}, ErrInvalidID
	}
	return ID{raw: string(raw)}, nil
}

// IsZero reports whether id was never set.
func (id ID) IsZero() bool { return id.raw == "" }

// IsString reports whether id is a JSON string.
func (id ID) IsString() bool { return len(id.raw) > 0 && id.raw[0] == '"' }

// String returns the id's JSON text: 3 or "3".
func (id ID) String() string { return id.raw }

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (id *ID) UnmarshalJSON(b []byte) error {
	v, err := ParseID(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}
