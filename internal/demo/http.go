package demo

import (
	"io"
	"log/slog"
	"net/http"

	"github.com/mcpoke/mcpoke/transport"
)

// HTTPHandler serves the demo server over Streamable HTTP in both eras:
// a session per initialize (protocols 2025-03-26 to 2025-11-25), and each
// request of protocol 2026-07-28 on its own. Mount it at /mcp; Close ends
// every session and request. Its log says which cancel signal each
// request received.
func HTTPHandler(log io.Writer, opts Options, allowRemote bool) interface {
	http.Handler
	io.Closer
} {
	return transport.NewHTTPServer(transport.HTTPServerConfig{
		Serve: func(id string, conn transport.Conn) io.Closer {
			return ServeConn(id, conn, log, opts)
		},
		ServeModern: func(conn transport.Conn) io.Closer {
			return ServeRequest(conn, log, opts)
		},
		CheckParamHeaders: func(frame []byte, params map[string]string) error {
			srv := newServer(io.Discard)
			if opts.ConformanceTools {
				srv.tools = append(srv.tools, prepareTools(conformanceTools())...)
			}
			return srv.checkParamHeaders(frame, params)
		},
		AllowRemote: allowRemote,
		Logger:      slog.New(slog.NewTextHandler(log, nil)),
	})
}
