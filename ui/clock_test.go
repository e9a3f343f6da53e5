package ui

import "github.com/mcpoke/mcpoke/internal/clocktest"

// testEpoch is the start of every test's time.
var testEpoch = clocktest.Epoch

// newFakeClock fires timers in their own goroutines, as time.AfterFunc
// does: some tests hold a timer's write (a cancel) at the transport while
// they look at the screen.
func newFakeClock() *clocktest.Clock { return clocktest.New(clocktest.Async()) }
