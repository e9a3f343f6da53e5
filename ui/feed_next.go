package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/ui/rows"
)

// nextCmd waits for the feed's next batch.
func nextCmd(gen int, f *rows.Feed) tea.Cmd {
	if f == nil {
		return nil
	}
	return func() tea.Msg {
		b := f.Next()
		if b == nil {
			return nil
		}
		return feedMsg{forGen: forGen{gen}, batch: b}
	}
}
