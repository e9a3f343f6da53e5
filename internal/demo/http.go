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
	tasks := newTaskStore() // the modern requests': they have no session
	h := transport.NewHTTPServer(transport.HTTPServerConfig{
		Serve: func(id string, conn transport.Conn) io.Closer {
			return ServeConn(id, conn, log, opts)
		},
		ServeStateless: func(conn transport.Conn) io.Closer {
			return serveRequest(conn, log, opts, tasks)
		},
		CheckParamHeaders: func(frame []byte, params map[string]string) error {
			srv := newServer(io.Discard)
			if opts.ConformanceTools {
				srv.tools = append(srv.tools, preparedConformanceTools()...)
			}
			return srv.checkParamHeaders(frame, params)
		},
		AllowRemote: allowRemote,
		Logger:      slog.New(slog.NewTextHandler(log, nil)),
	})
	return &handlerWithTasks{h, tasks}
}

// handlerCloser is what HTTPHandler returns.
type handlerCloser interface {
	http.Handler
	io.Closer
}

// handlerWithTasks stops the shared tasks' work when the server closes.
type handlerWithTasks struct {
	handlerCloser
	tasks *taskStore
}

// Close implements io.Closer.
func (h *handlerWithTasks) Close() error {
	err := h.handlerCloser.Close()
	h.tasks.stop()
	return err
}
