package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// HTTPOptions says where the HTTP reverse proxy relays to.
type HTTPOptions struct {
	// Upstream is the server's origin; requests keep their own path and
	// query, so that the host uses the server's paths on the proxy.
	Upstream *url.URL
	Recorder *Recorder
	Now      func() time.Time
	// Transport reaches the upstream; nil means http.DefaultTransport.
	Transport http.RoundTripper
	// Controls, if set, gets the proxy's kill switch (see httpKiller).
	Controls *Controls
	Kill     KillOptions
}

// EventStreamClosed starts the relay event that a host closed the
// response stream of a request (its JSON id follows) before the answer
// came: in protocol 2026-07-28 that is how a host cancels over HTTP.
const EventStreamClosed = "the host closed the response stream of request "

// NewHTTPHandler relays Streamable HTTP and legacy HTTP+SSE: every
// method, every header (Authorization, Mcp-Session-Id,
// MCP-Protocol-Version, Last-Event-ID, Mcp-Method, ...) both ways, the
// body as it is, event streams flushed as they come. A host closing a
// response stream closes the upstream's at once. Records hold the
// messages and the HTTP facts, never a header's value.
func NewHTTPHandler(opts HTTPOptions) http.Handler {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	emit := func(wire.Record) {}
	if opts.Recorder != nil {
		emit = opts.Recorder.record
	}
	up := opts.Upstream
	var killer *httpKiller
	if opts.Controls != nil {
		killer = newHTTPKiller(opts.Kill, opts.Transport, func(text string) {
			emit(wire.Record{At: now(), Dir: wire.In, Kind: wire.KindRelay, Data: []byte(text)})
		})
		killer.upstream = func(r *http.Request) *http.Request {
			r.URL.Scheme, r.URL.Host, r.Host = up.Scheme, up.Host, ""
			return r
		}
		opts.Controls.SetSwitch(killer)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = up.Scheme, up.Host
			pr.Out.Host = "" // the upstream's own name, for its Host checks
		},
		FlushInterval: -1, // every write reaches the host at once
		Transport:     opts.Transport,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if f := inflightOf(r); f.isKilled() {
				// Killed before the upstream's answer began.
				if ans := killer.killedAnswer(f, false); ans != nil {
					w.Header().Set("Content-Type", "application/json")
					w.Write(ans)
				} else {
					<-f.host.Done() // silent: the host waits until it gives up
				}
				return
			}
			if r.Context().Err() != nil {
				return // the host went away; nothing to answer
			}
			emit(wire.Record{At: now(), Dir: wire.In, Kind: wire.KindHTTP,
				Data: []byte(fmt.Sprintf("%s %s → upstream unreachable: %v", r.Method, transport.RedactURL(r.URL.String()), err))})
			http.Error(w, "mcpoke proxy: the upstream server is unreachable: "+err.Error(), http.StatusBadGateway)
		},
	}
	rp.ModifyResponse = func(resp *http.Response) error {
		r := resp.Request
		ct := resp.Header.Get("Content-Type")
		emit(wire.Record{At: now(), Dir: wire.In, Kind: wire.KindHTTP,
			Data: []byte(fmt.Sprintf("%s %s → %s %s", r.Method, transport.RedactURL(r.URL.RequestURI()), resp.Status, ct))})
		mt, _, _ := mime.ParseMediaType(ct)
		rb := &recordingBody{rc: resp.Body, now: now, emit: emit, id: requestIDOf(r), inflight: inflightOf(r), killer: killer}
		switch mt {
		case "text/event-stream":
			rb.sse = &sseSplitter{now: now, emit: rb.emitFrame}
			if r.Method == http.MethodGet {
				// Legacy SSE: its endpoint event may name the upstream.
				rb.rc = &endpointRewriter{rc: rb.rc, origin: up.Scheme + "://" + up.Host}
			}
		case "application/json":
			rb.json = true
		default:
			return nil
		}
		resp.Body = rb
		return nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				return // the host went away mid-request
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			id := recordPost(body, now, emit)
			r = r.WithContext(withRequestID(r.Context(), id))
			if killer != nil && id != "" {
				ctx, cancel := context.WithCancel(r.Context())
				defer cancel()
				f, done := killer.track(id, r, cancel)
				defer done()
				r = r.WithContext(withInflight(ctx, f))
			}
		}
		rp.ServeHTTP(w, r)
	})
}

// recordPost records a POST body as the host's frame, and returns the id
// of the request in it, if it holds one request.
func recordPost(body []byte, now func() time.Time, emit func(wire.Record)) string {
	l := &lineSplitter{dir: wire.Out, now: now, emit: emit}
	// A body is one message: newlines in it are JSON whitespace.
	l.add(bytes.ReplaceAll(bytes.ReplaceAll(body, []byte("\r"), []byte(" ")), []byte("\n"), []byte(" ")))
	l.end()
	if ms := messages(body); len(ms) == 1 && ms[0].Method != "" && len(ms[0].ID) > 0 {
		return compact(ms[0].ID)
	}
	return ""
}

// recordingBody passes an upstream response body on and records the
// messages in it: an event stream's events, or a JSON body at its end.
type recordingBody struct {
	rc   io.ReadCloser
	now  func() time.Time
	emit func(wire.Record)
	id   string // the request this answers, if the POST held one

	sse  *sseSplitter
	json bool
	buf  lineSplitter

	mu       sync.Mutex
	answered bool
	ended    bool

	// The kill switch: a killed request's body ends with the proxy's
	// answer (inject) in place of the upstream's.
	inflight *httpInflight
	killer   *httpKiller
	inject   []byte
	injected bool
}

func (b *recordingBody) Read(p []byte) (int, error) {
	if b.injected {
		n := copy(p, b.inject)
		b.inject = b.inject[n:]
		if len(b.inject) == 0 {
			return n, io.EOF
		}
		return n, nil
	}
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF && b.inflight.isKilled() {
		b.injected = true
		b.inject = b.killer.killedAnswer(b.inflight, b.sse != nil)
		if b.inject == nil {
			<-b.inflight.host.Done() // silent: the host waits until it gives up
			return n, io.EOF
		}
		return n, nil
	}
	if n > 0 {
		if b.sse != nil {
			b.sse.feed(p[:n])
		} else {
			if b.buf.emit == nil {
				b.buf = lineSplitter{dir: wire.In, now: b.now, emit: b.emitFrame}
			}
			b.buf.add(bytes.ReplaceAll(p[:n], []byte("\n"), []byte(" ")))
		}
	}
	if err == io.EOF {
		b.mu.Lock()
		b.ended = true
		b.mu.Unlock()
		if b.json && b.buf.size > 0 {
			b.buf.end()
		}
	}
	return n, err
}

// emitFrame records a message from the upstream and notes whether it
// answered the request.
func (b *recordingBody) emitFrame(r wire.Record) {
	if b.id != "" && r.Kind == wire.KindFrame {
		for _, m := range messages(r.Data) {
			if m.Method == "" && compact(m.ID) == b.id {
				b.mu.Lock()
				b.answered = true
				b.mu.Unlock()
			}
		}
	}
	b.emit(r)
}

// Close ends the upstream's body, and with it its stream. Closed before
// its end and before the answer came, it is the host closing the stream
// of a pending request.
func (b *recordingBody) Close() error {
	b.mu.Lock()
	cut := !b.ended && !b.answered && b.id != "" && !b.inflight.isKilled()
	b.ended = true
	b.mu.Unlock()
	if cut {
		b.emit(wire.Record{At: b.now(), Dir: wire.Out, Kind: wire.KindRelay, Data: []byte(EventStreamClosed + b.id)})
	}
	return b.rc.Close()
}

// IsLoopback reports whether a listen address is on loopback only.
func IsLoopback(addr string) bool {
	host := addr
	if h, _, err := splitHostPort(addr); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	return host == "localhost" || strings.HasPrefix(host, "127.") || host == "::1"
}
