package transport

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/mcpoke/mcpoke/internal/wire"
)

const (
	// DefaultMaxFrameSize bounds one inbound frame.
	DefaultMaxFrameSize = 32 << 20
	// oversizePreview is how much of an oversize frame is kept for display.
	oversizePreview = 256
	// readBufferSize is the bufio buffer: frames that fit are copied once,
	// straight out of it; longer ones are assembled across fills.
	readBufferSize = 64 << 10
)

// frameReader splits a server's stdout into Messages. Non-JSON lines are
// noise, never errors, because servers and their launchers log to stdout.
type frameReader struct {
	lines lineReader
	max   int
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
		lines: lineReader{br: bufio.NewReaderSize(r, bufSize), keep: max, cut: min(oversizePreview, max)},
		max:   max,
	}
}

// next returns the next Message, or io.EOF (or the read error) at the end.
func (f *frameReader) next() (Message, error) {
	line, size, err := f.lines.next()
	if err != nil {
		return Message{}, err
	}
	if size > f.max {
		return Message{Kind: wire.KindOversize, Data: line, Size: size}, nil
	}
	return Message{Kind: classify(line), Data: line}, nil
}

// classify says whether a line is a JSON-RPC frame. Only objects and
// arrays qualify: a bare number or string on stdout is far more likely a
// log line than a message.
func classify(line []byte) wire.Kind {
	for _, c := range line {
		if isSpace(c) {
			continue
		}
		if (c == '{' || c == '[') && json.Valid(line) {
			return wire.KindFrame
		}
		return wire.KindNoise
	}
	return wire.KindNoise
}

// lineReader reads newline-terminated lines of bounded length without ever
// buffering a whole overlong line: bufio.Scanner would fail on one instead.
type lineReader struct {
	br *bufio.Reader
	// keep is the longest line returned whole; a longer line comes back cut
	// to its first cut bytes, with its full size.
	keep, cut int
}

// next returns the next non-blank line without "\n" or a trailing "\r",
// and the line's length. The caller owns the returned slice.
func (l *lineReader) next() ([]byte, int, error) {
	for {
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
		acc  []byte // the line so far, once it spans buffer fills
		over bool   // known oversize: acc holds just the cut
		last byte
	)
	for {
		chunk, err := l.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			size += len(chunk)
			last = chunk[len(chunk)-1]
			if over {
				continue
			}
			acc = append(acc, chunk...)
			// keep+1 allows for a final "\r", which does not count.
			if size > l.keep+1 {
				acc, over = bytes.Clone(acc[:l.cut]), true
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
		case over:
			return acc, true, size, nil
		case acc != nil:
			acc = append(acc, chunk...)
			return acc[:size], true, size, nil
		}
		return chunk[:size], false, size, nil
	}
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
