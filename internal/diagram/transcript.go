package diagram

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// maxLineBytes bounds one transcript line: a frame is at most 32 MiB,
// and escaping can double it. Longer lines are skipped, not fatal.
const maxLineBytes = 80 << 20

// Item is one line of a transcript.
type Item struct {
	// Line is its line number in the file, from 1.
	Line int
	// T is milliseconds since the tap started.
	T   float64
	Dir string // "out", "in", "stderr" or "http"
	// Msg is the frame as it was on the wire; nil for a raw line.
	Msg  json.RawMessage
	Raw  string
	Note string
	// HTTP is an "http" line's fact: a POST's status, a stream closed.
	HTTP string
	// Violations name the rules an inbound frame broke.
	Violations []string
	// Session is the host session a line of a proxy's transcript over
	// HTTP belongs to (s1, s2, ...); "" elsewhere.
	Session string
}

// Transcript is what Read found in a file.
type Transcript struct {
	Items []Item
	// Skipped counts lines that are not transcript lines (not JSON, no
	// t or dir, too long): a transcript cut short by a crash still draws.
	Skipped int
	// Relayed: the transcript is mcpoke proxy's (it has "relay" lines,
	// which are not drawn): draw it with Options.Relayed.
	Relayed bool
}

// Read reads an NDJSON transcript. Lines it cannot use are counted in
// Skipped; only a read error is returned.
func Read(r io.Reader) (Transcript, error) {
	var tr Transcript
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(line) > 0 {
			if it, ok := parseItem(line); ok {
				it.Line = n
				tr.Items = append(tr.Items, it)
			} else if isRelayLine(line) {
				tr.Relayed = true
			} else {
				tr.Skipped++
			}
		}
		if errors.Is(err, io.EOF) {
			return tr, nil
		}
		if errors.Is(err, errLineTooLong) {
			tr.Skipped++
			continue
		}
		if err != nil {
			return tr, err
		}
	}
}

var errLineTooLong = errors.New("transcript line too long")

// readLine returns the next line without its newline; a line over
// maxLineBytes is read to its end and dropped, with errLineTooLong.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxLineBytes {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			if err == nil {
				err = errLineTooLong
			}
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// parseItem reads one line; ok is false when it is not a transcript line.
func parseItem(line []byte) (Item, bool) {
	var l struct {
		T          *float64        `json:"t"`
		Dir        string          `json:"dir"`
		Msg        json.RawMessage `json:"msg"`
		Raw        *string         `json:"raw"`
		Note       string          `json:"note"`
		Violations []string        `json:"violations"`
		HTTP       string          `json:"http"`
		Session    string          `json:"session"`
	}
	if json.Unmarshal(line, &l) != nil || l.T == nil {
		return Item{}, false
	}
	switch l.Dir {
	case "out", "in", "stderr", "http":
	default:
		return Item{}, false
	}
	it := Item{T: *l.T, Dir: l.Dir, Note: l.Note, Violations: l.Violations, HTTP: l.HTTP, Session: l.Session}
	if len(l.Msg) > 0 && !bytes.Equal(l.Msg, []byte("null")) {
		it.Msg = l.Msg
	}
	if l.Raw != nil {
		it.Raw = *l.Raw
	}
	return it, true
}

// isRelayLine reports whether line is one of mcpoke proxy's words about
// its relay.
func isRelayLine(line []byte) bool {
	var l struct {
		T   *float64 `json:"t"`
		Dir string   `json:"dir"`
	}
	return json.Unmarshal(line, &l) == nil && l.T != nil && l.Dir == "relay"
}
