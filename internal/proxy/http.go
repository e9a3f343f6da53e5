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
	// Faults provoke the host, as over stdio (see http_faults.go).
	Faults Faults
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
// messages and the HTTP facts, never a header's value; each names the
// host session it belongs to (s1, s2, ... by Mcp-Session-Id), since two
// sessions may use the same ids.
func NewHTTPHandler(opts HTTPOptions) http.Handler {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	emit := func(wire.Record) {}
	if opts.Recorder != nil {
		emit = opts.Recorder.record
	}
	sessions := &sessionLabels{}
	up := opts.Upstream
	var killer *httpKiller
	if opts.Controls != nil || opts.Faults.any() {
		killer = newHTTPKiller(opts.Kill, opts.Faults, opts.Transport, func(sess, text string) {
			emit(wire.Record{At: now(), Dir: wire.In, Kind: wire.KindRelay, Data: []byte(text), Session: sess})
		})
		killer.upstream = func(r *http.Request) *http.Request {
			r.URL.Scheme, r.URL.Host, r.Host = up.Scheme, up.Host, ""
			return r
		}
		if opts.Controls != nil {
			opts.Controls.SetSwitch(killer)
		}
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = up.Scheme, up.Host
			pr.Out.Host = "" // the upstream's own name, for its Host checks
		},
		FlushInterval: -1, // every write reaches the host at once
		Transport:     opts.Transport,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			sess := sessions.of(r.Header.Get("Mcp-Session-Id"))
			post := postOf(r)
			post.record(sess)
			if f := post.inflightOf(); f.isKilled() {
				// Killed before the upstream's answer began.
				if ans := killer.killedAnswer(f, false); ans != nil {
					w.Header().Set("Content-Type", "application/json")
					w.Write(ans)
				} else {
					killer.silentUntilTheHostGivesUp(f)
				}
				return
			}
			if r.Context().Err() != nil {
				// The host went away before the upstream's answer began
				// (a modern server may send no headers until the work
				// ends): nothing to answer, but for a request that is the
				// host closing its stream, as after the headers.
				if id := post.requestID(); id != "" {
					emit(wire.Record{At: now(), Dir: wire.Out, Kind: wire.KindRelay, Data: []byte(EventStreamClosed + id), Session: sess})
				}
				return
			}
			emit(wire.Record{At: now(), Dir: wire.In, Kind: wire.KindHTTP, Session: sess,
				Data: []byte(fmt.Sprintf("%s %s → upstream unreachable: %v", r.Method, transport.RedactURL(r.URL.String()), err))})
			http.Error(w, "mcpoke proxy: the upstream server is unreachable: "+err.Error(), http.StatusBadGateway)
		},
	}
	rp.ModifyResponse = func(resp *http.Response) error {
		r := resp.Request
		sess := sessions.of(r.Header.Get("Mcp-Session-Id"))
		if sess == "" {
			// initialize: the session begins with its answer.
			sess = sessions.of(resp.Header.Get("Mcp-Session-Id"))
		}
		post := postOf(r)
		post.record(sess)
		ct := resp.Header.Get("Content-Type")
		emit(wire.Record{At: now(), Dir: wire.In, Kind: wire.KindHTTP, Session: sess,
			Data: []byte(fmt.Sprintf("%s %s → %s %s", r.Method, transport.RedactURL(r.URL.RequestURI()), resp.Status, ct))})
		mt, _, _ := mime.ParseMediaType(ct)
		rb := &recordingBody{rc: resp.Body, now: now, emit: emit, session: sess, id: post.requestID(),
			inflight: post.inflightOf(), killer: killer, gated: killer != nil}
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
		var post *hostPost
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				return // the host went away mid-request
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			sess := sessions.of(r.Header.Get("Mcp-Session-Id"))
			post = newHostPost(body, now(), emit)
			if sess != "" || post.method != "initialize" {
				// initialize is recorded with its answer's headers, which
				// name the session it began; all else at once (a modern
				// server's answer may wait for the work to end).
				post.record(sess)
			}
			if killer != nil {
				for _, id := range post.cancels {
					killer.hostCancelled(RequestRef{sess, id})
				}
			}
			ctx := withPost(r.Context(), post)
			if killer != nil && post.id != "" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
				f, done := killer.track(RequestRef{sess, post.id}, post.method, r, ctx, cancel)
				defer done()
				post.inflight = f
			}
			r = r.WithContext(ctx)
		}
		rp.ServeHTTP(w, r)
		post.record(sessions.of(r.Header.Get("Mcp-Session-Id")))
	})
}

// hostPost is one POST of the host's: its body, recorded once its
// session is known, and the request it holds, if one.
type hostPost struct {
	body []byte
	at   time.Time
	emit func(wire.Record)
	once sync.Once

	id, method string   // the request it holds, if it holds one
	cancels    []string // the ids its notifications/cancelled name
	inflight   *httpInflight
}

func newHostPost(body []byte, at time.Time, emit func(wire.Record)) *hostPost {
	p := &hostPost{body: body, at: at, emit: emit}
	ms := messages(body)
	if len(ms) == 1 && ms[0].Method != "" && len(ms[0].ID) > 0 {
		p.id, p.method = compact(ms[0].ID), ms[0].Method
	}
	for _, m := range ms {
		if m.Method == "notifications/cancelled" && len(m.p.RequestID) > 0 {
			p.cancels = append(p.cancels, compact(m.p.RequestID))
		}
	}
	return p
}

// record records the body as the host's frame in session sess, once.
func (p *hostPost) record(sess string) {
	if p == nil {
		return
	}
	p.once.Do(func() {
		l := &lineSplitter{dir: wire.Out, now: func() time.Time { return p.at }, emit: func(r wire.Record) {
			r.Session = sess
			p.emit(r)
		}}
		// A body is one message: newlines in it are JSON whitespace.
		l.add(bytes.ReplaceAll(bytes.ReplaceAll(p.body, []byte("\r"), []byte(" ")), []byte("\n"), []byte(" ")))
		l.end()
	})
}

func (p *hostPost) requestID() string {
	if p == nil {
		return ""
	}
	return p.id
}

func (p *hostPost) inflightOf() *httpInflight {
	if p == nil {
		return nil
	}
	return p.inflight
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
