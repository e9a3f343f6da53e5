package ui

import (
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// Options configure the UI.
type Options struct {
	// Connect starts the server and a session on it; the UI calls it at
	// start and on every reconnect. Required.
	Connect Connector
	// ClientInfo is what initialize says about us.
	ClientInfo session.Implementation
	// Demo marks the built-in demo server: the first run shows a hint.
	Demo bool
	// Timeout applies to new calls until changed with the timeout key.
	Timeout time.Duration
	// Now is the clock for live times; default time.Now.
	Now func() time.Time
	// Static turns off spinners and ticks, for deterministic tests.
	Static bool
	// FrameInterval bounds how often session events reach the model;
	// default DefaultFrameInterval.
	FrameInterval time.Duration
	// MaxRows is how many finished requests the table keeps; default
	// 10,000, like the session.
	MaxRows int
}
