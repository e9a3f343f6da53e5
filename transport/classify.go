package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/mcpoke/mcpoke/internal/jsonscan"
	"github.com/mcpoke/mcpoke/internal/wire"
)

// MaxNesting is the deepest nesting of a frame, encoding/json's own
// limit: a deeper line could never be decoded, so it is malformed.
const MaxNesting = 10000

// classify says whether a line is a JSON-RPC frame, noise, or malformed
// (and why). Only objects and arrays qualify: a bare number or string on
// stdout is far more likely a log line than a message. A line that starts
// like one but cannot be used is malformed, so that the session can fail
// the request it names instead of letting it wait for ever.
func classify(line []byte) (wire.Kind, string) {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	if i == len(line) || line[i] != '{' && line[i] != '[' {
		return wire.KindNoise, ""
	}
	if jsonscan.Valid(line) { // json.Valid's answer, several times faster: every inbound line passes here
		if !utf8.Valid(line) {
			return wire.KindMalformed, fmt.Sprintf("invalid UTF-8 at byte %d (JSON text must be UTF-8)", invalidUTF8At(line))
		}
		return wire.KindFrame, ""
	}
	return wire.KindMalformed, diagnose(line)
}

// diagnose says why a line that starts like JSON is not a JSON value.
func diagnose(line []byte) string {
	if _, d := Nesting(line); d > MaxNesting {
		return fmt.Sprintf("JSON nested %d deep, over the limit of %d", d, MaxNesting)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	var v json.RawMessage
	err := dec.Decode(&v)
	switch {
	case err == nil:
		rest := bytes.TrimLeft(line[dec.InputOffset():], " \t\r\v\f")
		return fmt.Sprintf("%d bytes after the JSON value (%q)", len(rest), preview(rest, 20))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return "JSON cut short at the end of the line: a message spread over several lines " +
			"(pretty-printed)? On stdio each message must be one line"
	}
	return "not valid JSON: " + err.Error()
}

// Nesting scans b's brackets and braces outside strings: how many more it
// opens than it closes, and the deepest it goes. The session reads a
// pretty-printed message's lines with it; classify, a line's depth.
func Nesting(b []byte) (change, deepest int) {
	d, inStr, esc := 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr:
			esc = c == '\\'
			inStr = c != '"'
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return d, deepest
}

// invalidUTF8At is the offset of the first byte that is not UTF-8.
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

func preview(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// Classify says whether a line (without its newline) is a JSON-RPC
// frame, noise or malformed, and why, as the stdio reader judges it: for
// records of traffic that passed through unjudged (mcpoke proxy).
func Classify(line []byte) (wire.Kind, string) { return classify(line) }
