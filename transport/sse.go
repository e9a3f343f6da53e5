package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"sync"
)

// sseEvent is one block of an SSE stream, up to a blank line, parsed by
// the WHATWG event-stream rules. Blocks without data are returned too
// (a lone id, retry or comment), so that the wire log can show them;
// only Dispatch blocks carry an event.
type sseEvent struct {
	// Dispatch: the block had at least one data field, so it is an event
	// (data "" included).
	Dispatch bool
	// Type is the event field, "" meaning "message".
	Type string
	// Data is the data fields joined by LF, or its first bytes when
	// Oversize.
	Data []byte
	// Oversize: the data went past the limit; Size is its full length.
	Oversize bool
	Size     int
	// LastID is the stream's last event ID after this block, the one to
	// resume from; IDSet says
	// this block had an id field (perhaps an empty one, which resets it).
	LastID string
	IDSet  bool
	// Retry is the reconnection time in milliseconds when RetrySet.
	Retry    int
	RetrySet bool
	// Comments are the block's comment lines without the colon, each
	// cut to sseCommentKeep bytes; at most sseCommentsKept of them,
	// Comments counts them all.
	Comments     []string
	CommentCount int
}

const (
	sseCommentKeep  = 200
	sseCommentsKept = 8
	// sseFieldKeep bounds the event type and id: a longer type is cut, a
	// longer id ignored, so that only data can be large.
	sseFieldKeep = 256
)

// errSSETruncated: the stream ended inside a block; WHATWG says such an
// event is dropped, and the caller says so.
var errSSETruncated = errors.New("the event stream ended in the middle of an event")

// sseReader parses an event stream. Memory is bounded by max for data
// plus small fixed amounts for the other fields, whatever the input.
type sseReader struct {
	br  *bufio.Reader
	max int
	// idBuffer is the id field last seen; lastID the one in force, set
	// when a block ends (WHATWG's last event ID buffer and string).
	idBuffer, lastID string
	started          bool // the optional BOM was checked
	pendingCR        bool // the last line ended in CR: a following LF belongs to it

	line     []byte
	lineSize int
}

func newSSEReader(r io.Reader, max int) *sseReader {
	if max <= 0 {
		max = DefaultMaxFrameSize
	}
	br := sseBuffers.Get().(*bufio.Reader)
	br.Reset(r)
	return &sseReader{br: br, max: max}
}

// sseBuffers keeps the 32 KiB read buffers of ended streams: over
// Streamable HTTP every call's response may be a stream of its own, and
// a fresh buffer each time cost a sixth of the client's CPU.
var sseBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 32<<10) }}

// release gives the read buffer back once the stream ended; the reader
// must not be used after. Events hold copies, never the buffer.
func (r *sseReader) release() {
	r.br.Reset(nil)
	sseBuffers.Put(r.br)
	r.br = nil
}

// next returns the next block. At the end of the stream it returns io.EOF
// (or the read error); a block cut short by the end is reported as
// errSSETruncated, once, before that, with what of it took effect (retry)
// and the comments.
func (r *sseReader) next() (sseEvent, error) {
	var ev sseEvent
	var data []byte
	dataSize := 0
	seen := false
	if !r.started {
		r.started = true
		if b, err := r.br.Peek(3); err == nil && bytes.Equal(b, sseBOM) {
			r.br.Discard(3)
		}
	}
	for {
		err := r.readLine(r.max)
		if err != nil {
			// Truncated only if a block was under way: a connection cut
			// between events (net/http says io.ErrUnexpectedEOF for a
			// chunked body cut short) is the read error itself.
			partial := r.lineSize > 0
			if partial || (seen && (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF))) {
				// The retry already took effect; the id and data did not.
				return sseEvent{LastID: r.lastID, Retry: ev.Retry, RetrySet: ev.RetrySet,
					Comments: ev.Comments, CommentCount: ev.CommentCount}, errSSETruncated
			}
			return sseEvent{}, err
		}
		line := r.line
		if r.lineSize == 0 {
			if !seen {
				continue
			}
			if ev.Dispatch {
				if dataSize > r.max {
					ev.Oversize, ev.Size = true, dataSize
				}
				ev.Data = data
			}
			r.lastID = r.idBuffer
			ev.LastID = r.lastID
			return ev, nil
		}
		seen = true
		if line[0] == ':' {
			ev.CommentCount++
			if len(ev.Comments) < sseCommentsKept {
				c := line[1:]
				ev.Comments = append(ev.Comments, string(c[:min(len(c), sseCommentKeep)]))
			}
			continue
		}
		name, value := line, []byte(nil)
		valueSize := 0
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], line[i+1:]
			valueSize = r.lineSize - i - 1
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
				valueSize--
			}
		} else if r.lineSize > len(line) {
			continue // a field name longer than anything kept: unknown
		}
		switch string(name) {
		case "data":
			if ev.Dispatch {
				dataSize++
				if len(data) < r.max {
					data = append(data, '\n')
				}
			}
			ev.Dispatch = true
			dataSize += valueSize
			if room := r.max - len(data); room > 0 {
				data = append(data, value[:min(len(value), room)]...)
			}
		case "event":
			ev.Type = string(value[:min(len(value), sseFieldKeep)])
		case "id":
			if valueSize == len(value) && len(value) <= sseFieldKeep && bytes.IndexByte(value, 0) < 0 {
				r.idBuffer = string(value)
				ev.IDSet = true
			}
		case "retry":
			if n, ok := sseDigits(value, valueSize); ok {
				ev.Retry, ev.RetrySet = n, true
			}
		}
	}
}

// sseDigits parses a retry value: ASCII digits only, else ignored.
func sseDigits(v []byte, size int) (int, bool) {
	if len(v) == 0 || size != len(v) || len(v) > 9 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(v))
	return n, err == nil
}

// readLine reads one line ended by CRLF, LF or CR into r.line, keeping at
// most keep bytes; r.lineSize is its full length.
func (r *sseReader) readLine(keep int) error {
	r.line = r.line[:0]
	r.lineSize = 0
	if cap(r.line) > 1<<20 {
		r.line = nil // do not hold on to one huge line's buffer
	}
	if r.pendingCR {
		r.pendingCR = false
		b, err := r.br.Peek(1)
		if err == nil && b[0] == '\n' {
			r.br.Discard(1)
		}
	}
	for {
		if _, err := r.br.Peek(1); err != nil {
			if r.lineSize > 0 && err == io.EOF {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		buf, _ := r.br.Peek(r.br.Buffered())
		i := bytes.IndexAny(buf, "\r\n")
		chunk := buf
		if i >= 0 {
			chunk = buf[:i]
		}
		if room := keep + sseFieldKeep + 16 - len(r.line); room > 0 {
			r.line = append(r.line, chunk[:min(len(chunk), room)]...)
		}
		r.lineSize += len(chunk)
		if i < 0 {
			r.br.Discard(len(buf))
			continue
		}
		r.pendingCR = buf[i] == '\r'
		r.br.Discard(i + 1)
		return nil
	}
}

// sseBOM may start a stream; it is skipped (WHATWG).
var sseBOM = []byte("\xef\xbb\xbf")
