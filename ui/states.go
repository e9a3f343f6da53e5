package ui

import (
	"charm.land/lipgloss/v2"

	"github.com/mcpoke/mcpoke/session"
)

// stateWord is a state as the screen says it.
func stateWord(s session.State) string {
	if s == session.TimedOut {
		return "timed out"
	}
	return s.String()
}

// stateGlyph marks a finished state so states differ without colour too.
func stateGlyph(c *common, s session.State) string {
	switch s {
	case session.Pending, session.Cancelling:
		return c.Spinner()
	case session.Completed:
		return "✓"
	case session.Failed:
		return "✗"
	case session.TimedOut:
		return "◔"
	case session.Cancelled:
		return "⊘"
	}
	return "?"
}

// stateStyle is the style of a state.
func stateStyle(st *styles, s session.State) lipgloss.Style {
	switch s {
	case session.Pending:
		return st.StatePending
	case session.Cancelling:
		return st.StateCancelling
	case session.Completed:
		return st.StateCompleted
	case session.Failed:
		return st.StateFailed
	case session.TimedOut:
		return st.StateTimedOut
	default:
		return st.StateCancelled
	}
}

// lipWidth is the width of a styled string in cells.
func lipWidth(s string) int { return textWidth(s) }
