package proxy

import (
	"bytes"
	"io"
)

// endpointScan bounds how much of a legacy SSE stream's start is held
// back to find its endpoint event.
const endpointScan = 64 << 10

// endpointRewriter passes a legacy SSE stream on, but makes the
// endpoint event's URL relative when it names the upstream's origin, so
// that the host posts its messages to the proxy, not past it. Only the
// stream's first event is looked at; the rest passes as it comes.
type endpointRewriter struct {
	rc     io.ReadCloser
	origin string // scheme://host of the upstream
	held   []byte
	out    []byte // rewritten start, still to hand on
	done   bool
}

func (e *endpointRewriter) Read(p []byte) (int, error) {
	for !e.done {
		buf := make([]byte, 4096)
		n, err := e.rc.Read(buf)
		e.held = append(e.held, buf[:n]...)
		if end := eventEnd(e.held); end >= 0 || len(e.held) >= endpointScan || err != nil {
			if end >= 0 {
				e.out = append(rewriteEndpoint(e.held[:end], e.origin), e.held[end:]...)
			} else {
				e.out = e.held
			}
			e.held, e.done = nil, true
			if err != nil && len(e.out) == 0 {
				return 0, err
			}
		}
	}
	if len(e.out) > 0 {
		n := copy(p, e.out)
		e.out = e.out[n:]
		return n, nil
	}
	return e.rc.Read(p)
}

func (e *endpointRewriter) Close() error { return e.rc.Close() }

// eventEnd is the end of the first event block (its blank line), or -1.
func eventEnd(b []byte) int {
	for _, sep := range []string{"\n\n", "\r\n\r\n", "\r\r"} {
		if i := bytes.Index(b, []byte(sep)); i >= 0 {
			return i
		}
	}
	return -1
}

// rewriteEndpoint turns "data: ORIGIN/path" in an endpoint event into
// "data: /path".
func rewriteEndpoint(block []byte, origin string) []byte {
	if !bytes.Contains(block, []byte("event: endpoint")) && !bytes.Contains(block, []byte("event:endpoint")) {
		return block
	}
	for _, prefix := range []string{"data: ", "data:"} {
		if i := bytes.Index(block, []byte(prefix+origin)); i >= 0 {
			rest := block[i+len(prefix)+len(origin):]
			out := append(bytes.Clone(block[:i+len(prefix)]), rest...)
			if !bytes.HasPrefix(rest, []byte("/")) {
				out = append(bytes.Clone(block[:i+len(prefix)]), append([]byte("/"), rest...)...)
			}
			return out
		}
	}
	return block
}
