package ui

import (
	"io"
	"testing"

	"github.com/mcpoke/mcpoke/internal/clocktest"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/demo"
	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// modernDemoConn is the built-in demo server on an in-memory pipe,
// spoken to in protocol 2026-07-28 (found with server/discover).
func modernDemoConn(t *testing.T, clock *clocktest.Clock) *connect.Conn {
	a, b := transporttest.Pipe()
	srv := demo.NewSession(b, io.Discard)
	connect.ForgetEras()
	conn := connect.Attach(connect.Spec{Name: "demo-modern"}, a, connect.Options{Protocol: connect.ProtocolAuto, Session: session.Config{Clock: clock}})
	t.Cleanup(func() {
		conn.Close()
		srv.Close()
	})
	return conn
}

// In 2026-07-28 s subscribes through subscriptions/listen (demo://readme
// never changes, so the screen holds still), and s again closes it.
func TestFlowModernSubscribe(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, modernDemoConn(t, clock), false)
	f.waitScreen("TOOLS 9", "MCP 2026-07-28", "2 completed")
	f.keys("2")
	f.waitScreen("RESOURCES 5", "5 completed")
	f.keys("s")
	f.golden("subscribed", "subscribed to demo://readme through subscriptions/listen #6",
		`subscription acknowledged {"resourceSubscriptions":["demo://readme"]}`, "listening: 0 notif")
	f.keys("s")
	f.golden("unsubscribed", "unsubscribed from demo://readme: closed subscriptions/listen #6 (notifications/cancelled", "closed after 0 notifications")
}

// In 2026-07-28 V sets the level that goes with each request, and the
// demo logs about those requests only.
func TestFlowModernLogPane(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, modernDemoConn(t, clock), false)
	f.waitScreen("TOOLS 9", "MCP 2026-07-28", "2 completed")
	f.keys("l")
	f.waitScreen("no log messages: in protocol 2026-07-28 a server logs only about requests tha")
	f.keys("V")
	f.waitScreen("log level (debug")
	f.keys("enter")
	f.waitScreen("log level debug: sent in the _meta")
	f.keys("2")
	f.waitScreen("RESOURCES 5", "5 completed")
	f.keys("enter")
	f.golden("log", "SERVER LOG 1 message · level debug (per request)", "info    resources read demo://readme", "6 completed")
}
