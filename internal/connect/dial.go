package connect

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpoke/mcpoke/transport"
)

// dialURL reaches a remote server: Streamable HTTP, legacy HTTP+SSE, or
// (auto) the spec's probe, POST initialize first and legacy SSE on 400,
// 404 or 405.
func dialURL(spec Spec, opts Options) (transport.Conn, error) {
	header, err := ParseHeaders(spec.Headers)
	if err != nil {
		return nil, err
	}
	client, err := transport.NewHTTPClient(opts.HTTP)
	if err != nil {
		return nil, err
	}
	ho := transport.HTTPOptions{URL: spec.URL, Header: header, Client: client, ConnectTimeout: opts.HTTP.ConnectTimeout, Auth: opts.Auth}
	switch spec.Transport {
	case "", "auto":
		ho.FallbackToSSE = true
		return transport.DialHTTP(ho)
	case "http":
		return transport.DialHTTP(ho)
	case "sse":
		return transport.DialSSE(ho)
	}
	return nil, fmt.Errorf("unknown transport %q; use auto, http or sse", spec.Transport)
}

// ParseHeaders turns "Name: value" lines into a header.
func ParseHeaders(lines []string) (http.Header, error) {
	h := http.Header{}
	for _, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			// Not echoed: a malformed line may be a bare secret.
			return nil, fmt.Errorf("a header (%d characters) is not \"Name: value\"", len(l))
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, nil
}
