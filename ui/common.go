package ui

import "time"

// common is what every component shares, passed by pointer so a theme or
// size change reaches them all at once.
type common struct {
	Styles *styles
	Keys   *keyMap
	// Width and Height are the whole terminal's size.
	Width, Height int
	// Now is the UI's clock for live elapsed times; tests fix it.
	Now func() time.Time
	// Animate turns on spinners and live ticks; tests turn it off so every
	// frame is deterministic.
	Animate bool
	// Frame is the spinner frame, advanced by the animation tick.
	Frame int
}

// spinnerFrames is the pending and cancelling animation.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Spinner returns the current spinner glyph.
func (c *common) Spinner() string { return spinnerFrames[c.Frame%len(spinnerFrames)] }
