package proxy

import (
	"bytes"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/mcpoke/mcpoke/internal/jsonscan"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// Bounds of one record: a line longer than headKeep+tailKeep is recorded
// by its first headKeep and last tailKeep bytes and its size. The relay
// itself passes every byte of it on.
const (
	headKeep = 1 << 20
	tailKeep = 4 << 10
)

// lineSplitter cuts the bytes that passed one way into the lines a record
// is made of, keeping only a bounded head and tail of each. The stdio
// relay's are fed on the recorder's goroutine (Recorder.lines), so that
// they never delay the bytes.
type lineSplitter struct {
	dir    wire.Direction
	stderr bool // the server's stderr: each line is a KindStderr record
	now    func() time.Time
	emit   func(wire.Record)
	at     time.Time // the time of the chunk being fed (Recorder.lines)

	head []byte // the line's first bytes, up to headKeep
	tail []byte // its latest bytes past head, up to 2*tailKeep
	size int    // its full length so far
}

// feed takes the bytes of one read.
func (l *lineSplitter) feed(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.add(p)
			return
		}
		l.add(p[:i])
		l.end()
		p = p[i+1:]
	}
}

// flush records a last line that had no newline when its stream ended.
func (l *lineSplitter) flush() {
	if l.size > 0 {
		l.end()
	}
}

func (l *lineSplitter) add(b []byte) {
	l.size += len(b)
	if room := headKeep - len(l.head); room > 0 {
		n := min(room, len(b))
		l.head = append(l.head, b[:n]...)
		b = b[n:]
	}
	if len(b) == 0 {
		return
	}
	l.tail = append(l.tail, b...)
	if len(l.tail) > 2*tailKeep {
		l.tail = append(l.tail[:0], l.tail[len(l.tail)-tailKeep:]...)
	}
}

// end makes the record of the line now complete.
func (l *lineSplitter) end() {
	r := wire.Record{At: l.now(), Dir: l.dir, Size: l.size}
	line, size := l.head, l.size
	if size <= len(line) && size > 0 && line[size-1] == '\r' {
		line, size = line[:size-1], size-1
	}
	cut := size > len(line)
	switch {
	case isBlankLine(line) && !cut:
		// Blank lines carry nothing; stdio readers skip them too.
		l.reset()
		return
	case l.stderr:
		r.Kind = wire.KindStderr
		r.Data = bytes.Clone(line)
		if cut {
			r.Why = fmt.Sprintf("stderr line of %s cut to its first %s", wire.FormatSize(size), wire.FormatSize(len(line)))
		}
	case cut:
		tail := l.tail
		if len(tail) > tailKeep {
			tail = tail[len(tail)-tailKeep:]
		}
		r.Kind = wire.KindOversize
		r.Data = append(append(bytes.Clone(line), " … "...), tail...)
		r.Why = fmt.Sprintf("line of %s: the record keeps its first %s and last %s; the relay passed it whole",
			wire.FormatSize(size), wire.FormatSize(len(line)), wire.FormatSize(len(tail)))
	default:
		r.Data = bytes.Clone(line)
		r.Size = size
		r.Kind, r.Why = classify(line)
	}
	l.reset()
	l.emit(r)
}

func (l *lineSplitter) reset() {
	if cap(l.head) > 64<<10 {
		l.head = nil // one huge line does not pin its buffer
	} else {
		l.head = l.head[:0]
	}
	l.tail = l.tail[:0]
	l.size = 0
}

func isBlankLine(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// classify is transport.Classify, with its common case, a valid frame,
// found in one fast pass (the records check every line).
func classify(line []byte) (wire.Kind, string) {
	i := jsonscan.SkipSpace(line, 0)
	if i < len(line) && (line[i] == '{' || line[i] == '[') && jsonscan.Valid(line) && utf8.Valid(line) {
		return wire.KindFrame, ""
	}
	return transport.Classify(line)
}
