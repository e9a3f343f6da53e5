package transport

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/mcpoke/mcpoke/internal/wire"
)

const (
	// DefaultMaxFrameSize bounds one inbound frame.
	DefaultMaxFrameSize = 32 << 20
	// oversizePreview is how much of the start of an oversize frame is
	// kept, for display and to find the id of the request it answers.
	oversizePreview = 1 << 10
	// oversizeTail is how much of the end of an oversize frame is kept:
	// an id written after a huge result is found there.
	oversizeTail = 256
	// readBufferSize is the bufio buffer: frames that fit are copied once,
	// straight out of it; longer ones are assembled across fills.
	readBufferSize = 64 << 10
)

// bom is the UTF-8 byte-order mark, which some Windows-born servers write
// before their output; it is not JSON whitespace.
var bom = []byte{0xEF, 0xBB, 0xBF}

// frameReader splits a server's stdout into Messages. Non-JSON lines are
// noise, never errors, because servers and their launchers log to stdout.
type frameReader struct {
	lines lineReader
	max   int
	// next holds the line behind a byte-order mark while its note is
	// delivered first.
	queued *Message
}

func newFrameReader(r io.Reader, max int) *frameReader {
	return newFrameReaderSize(r, max, readBufferSize)
}

// newFrameReaderSize lets tests shrink the buffer to reach the multi-fill
// paths with small inputs.
func newFrameReaderSize(r io.Reader, max, bufSize int) *frameReader {
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	return &frameReader{
		lines: lineReader{br: bufio.NewReaderSize(r, bufSize), keep: max, cut: min(oversizePreview, max), tailKeep: oversizeTail},
		max:   max,
	}
}

// next returns the next Message, or io.EOF (or the read error) at the end.
func (f *frameReader) next() (Message, error) {
	if q := f.queued; q != nil {
		f.queued = nil
		return *q, nil
	}
	line, size, err := f.lines.next()
	if err != nil {
		return Message{}, err
	}
	over := size > f.max // the limit counts a byte-order mark too
	if !bytes.HasPrefix(line, bom) {
		return f.message(line, size, over), nil
	}
	// Stripped and noted rather than fatal: the frame behind it is fine.
	note := Message{Kind: wire.KindNoise, Data: bytes.Clone(bom), Why: BOMStripped}
	line, size = line[len(bom):], size-len(bom)
	if over || !isBlank(line) {
		m := f.message(line, size, over)
		f.queued = &m
	}
	return note, nil
}

// message classifies one line of size bytes; over says it was over the
// limit, and line holds only its start.
func (f *frameReader) message(line []byte, size int, over bool) Message {
	if over {
		return Message{Kind: wire.KindOversize, Data: line, Size: size, Tail: f.lines.tail,
			Why: fmt.Sprintf("a frame of %s, over the size limit of %s", wire.FormatSize(size), wire.FormatSize(f.max))}
	}
	kind, why := classify(line)
	return Message{Kind: kind, Data: line, Why: why, Valid: kind == wire.KindFrame}
}

// lineReader reads newline-terminated lines of bounded length without ever
// buffering a whole overlong line: bufio.Scanner would fail on one instead.
type lineReader struct {
	br *bufio.Reader
	// keep is the longest line returned whole; a longer line comes back cut
	// to its first cut bytes, with its full size.
	keep, cut int
	// tailKeep is how much of the end of an overlong line is kept in tail
	// (0: none); tail is valid until the next call.
	tailKeep int
	tail     []byte
}

// next returns the next non-blank line without "\n" or a trailing "\r",
// and the line's length. The caller owns the returned slice.
func (l *lineReader) next() ([]byte, int, error) {
	for {
		l.tail = nil
		line, owned, size, err := l.read()
		switch {
		case err != nil:
			return nil, 0, err
		case size > l.keep:
			if owned && len(line) == l.cut {
				return line, size, nil
			}
			// Copy so the cut does not pin a large buffer.
			return bytes.Clone(line[:l.cut]), size, nil
		case isBlank(line):
			continue
		case owned:
			return line, size, nil
		}
		// The one copy out of the reader's buffer.
		return bytes.Clone(line), size, nil
	}
}

// read returns one line: whole (line[:size]) if it has at most keep bytes,
// else at least its first cut bytes. owned is false when line points into
// the bufio buffer, valid only until the next read.
func (l *lineReader) read() (line []byte, owned bool, size int, err error) {
	var (
		acc  spill  // the line so far, once it spans buffer fills
		cut  []byte // known oversize: the line's first cut bytes
		last byte
	)
	for {
		chunk, err := l.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			size += len(chunk)
			last = chunk[len(chunk)-1]
			if cut != nil {
				l.keepTail(chunk)
				continue
			}
			acc.write(chunk)
			// keep+1 allows for a final "\r", which does not count.
			if size > l.keep+1 {
				l.keepTail(acc.appendRange(nil, max(l.cut, size-l.tailKeep), size))
				cut = acc.appendRange(make([]byte, 0, l.cut), 0, l.cut)
				acc = spill{}
			}
			continue
		}
		if err != nil && err != io.EOF {
			return nil, false, 0, err
		}
		if err == nil {
			chunk = chunk[:len(chunk)-1]
		} else if len(chunk) == 0 && size == 0 {
			return nil, false, 0, io.EOF
		}
		size += len(chunk)
		if len(chunk) > 0 {
			last = chunk[len(chunk)-1]
		}
		if last == '\r' {
			size--
		}
		switch {
		case cut != nil:
			if last == '\r' && len(chunk) > 0 {
				chunk = chunk[:len(chunk)-1]
			} else if last == '\r' && len(l.tail) > 0 {
				l.tail = l.tail[:len(l.tail)-1] // the "\r" ended the previous fill
			}
			l.keepTail(chunk)
			return cut, true, size, nil
		case acc.size > 0:
			line, owned = acc.join(chunk)[:size], true
		default:
			line = chunk[:size]
		}
		if size > l.keep {
			l.keepTail(line[l.cut:])
		}
		return line, owned, size, nil
	}
}

// keepTail appends b to the tail of an overlong line, keeping its last
// tailKeep bytes in a buffer of its own.
func (l *lineReader) keepTail(b []byte) {
	if l.tailKeep == 0 {
		return
	}
	if len(b) >= l.tailKeep {
		l.tail = append(l.tail[:0], b[len(b)-l.tailKeep:]...)
		return
	}
	if drop := len(l.tail) + len(b) - l.tailKeep; drop > 0 {
		l.tail = append(l.tail[:0], l.tail[drop:]...)
	}
	l.tail = append(l.tail, b...)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
