package ui

import (
	"charm.land/lipgloss/v2"

	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
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

// A tools/call that completed with isError: true is a tool error: the
// server answered, the tool failed. It is a completed request to the
// session but never a success on screen.
const (
	toolErrorWord  = "tool error"
	toolErrorGlyph = "✗"
)

// A request answered input_required (2026-07-28) needs input: complete to
// the session, but waiting for its next round on screen.
const (
	needsInputWord  = "needs input"
	needsInputGlyph = "?"
)

// Auto mode's server/discover to a legacy server fails by design: a
// neutral state, not a failure.
const (
	eraProbeWord  = "probe"
	eraProbeGlyph = "·"
)

// rowStateWord is a row's state as the screen says it.
func rowStateWord(r *rows.Row) string {
	if r.EraProbe {
		return eraProbeWord
	}
	if r.NeedsInput() {
		return needsInputWord
	}
	if r.ToolError {
		return toolErrorWord
	}
	if w, ok := taskStateWord(r); ok {
		return w
	}
	if w, _, ok := holdState(r); ok {
		return w
	}
	return stateWord(r.State)
}

// A proxy's hold on an answer (mcpoke attach): while it holds it, or
// once it dropped it, the host is still waiting, which the state says;
// the age of the hold is in the row's notes (holdBadge).
const (
	heldWord     = "held by proxy"
	heldGlyph    = "⏸"
	droppedWord  = "answer dropped"
	droppedGlyph = "∅"
)

// holdState is the state a pending row shows while a proxy holds its
// answer, or after it dropped it.
func holdState(r *rows.Row) (word, glyph string, ok bool) {
	if r.Hold == nil || r.State != session.Pending {
		return "", "", false
	}
	if r.Holding() {
		return heldWord, heldGlyph, true
	}
	if r.Hold.Dropped {
		return droppedWord, droppedGlyph, true
	}
	return "", "", false
}

// rowStateGlyph is stateGlyph for a row.
func rowStateGlyph(c *common, r *rows.Row) string {
	if r.EraProbe {
		return eraProbeGlyph
	}
	if r.NeedsInput() {
		return needsInputGlyph
	}
	if r.ToolError {
		return toolErrorGlyph
	}
	if _, g, ok := holdState(r); ok {
		return g
	}
	return stateGlyph(c, r.State)
}

// rowStateStyle is stateStyle for a row.
func rowStateStyle(st *styles, r *rows.Row) lipgloss.Style {
	if r.EraProbe {
		return st.Muted
	}
	if r.ToolError {
		return st.StateToolError
	}
	return stateStyle(st, r.State)
}

// lipWidth is the width of a styled string in cells.
func lipWidth(s string) int { return textWidth(s) }
