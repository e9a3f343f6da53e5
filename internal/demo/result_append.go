package demo

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/mcpoke/mcpoke/session"
)

// The immediate tools' results are written by appending bytes, not by
// json.Marshal of a struct and, in 2026-07-28, a map: the same bytes
// (tests compare them) for a fraction of the time and allocations.

// openResult appends a result's start: in 2026-07-28, the _meta
// eraAware adds (its keys sort before a tool result's, as the map in
// modernResult sorts them).
func openResult(b []byte, modern bool) []byte {
	if !modern {
		return append(b, '{')
	}
	b = append(b, `{"_meta":{"`+session.MetaServerInfo+`":`...)
	b = append(b, serverInfoJSON()...)
	return append(b, "},"...)
}

// closeResult appends a result's end: in 2026-07-28, its resultType
// (whose key sorts after a tool result's).
func closeResult(b []byte, modern bool) []byte {
	if !modern {
		return append(b, '}')
	}
	return append(b, `,"resultType":"complete"}`...)
}

// appendToolResultMembers appends res's members as json.Marshal writes
// them, without the braces.
func appendToolResultMembers(b []byte, res toolResult) []byte {
	b = append(b, `"content":`...)
	if res.Content == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range res.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":`...)
			b = appendJSONString(b, c.Type)
			b = append(b, `,"text":`...)
			b = appendJSONString(b, c.Text)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return b
}

// appendJSONString appends s as json.Marshal writes it: printable ASCII
// that it does not escape is copied; anything else is its encoding.
func appendJSONString(b []byte, s string) []byte {
	if !plainJSON(s) {
		q, _ := json.Marshal(s)
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON reports whether s is written between quotes as it is, both
// by json.Marshal and in JSON text it was decoded from: printable ASCII
// without the characters json.Marshal escapes (quote, backslash, and
// the HTML ones).
func plainJSON[T ~string | ~[]byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c == 0x7f {
			return false
		}
	}
	return true
}

// decodeJSONString is the string a JSON string token holds, copied
// without a decoder when it holds no escapes and only ASCII (a decoder
// replaces bytes that are not UTF-8).
func decodeJSONString(tok []byte) string {
	if len(tok) >= 2 && tok[0] == '"' && tok[len(tok)-1] == '"' {
		if inner := tok[1 : len(tok)-1]; plainJSON(inner) {
			return string(inner)
		}
	}
	var s string
	_ = json.Unmarshal(tok, &s)
	return s
}
