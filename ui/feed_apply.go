package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// batchEffects is what a batch asks of the screen once its rows are up
// to date.
type batchEffects struct {
	// settled are the rows whose full record to fetch.
	settled []*rows.Row
	// tasks are the new task rows to follow.
	tasks    []session.Ref
	logs     []logLine
	notified []tea.Cmd
}

// applyBatch brings the model's rows up to date with a batch of events
// (the store's share is rows.Store.Apply) and returns the commands that
// fetch the full record of rows that settled.
func (m *Model) applyBatch(b *rows.Batch) []tea.Cmd {
	follow := m.table.atBottom()
	// Stderr first: a Closed event in this batch quotes its last line.
	if len(b.Stderr) > 0 || b.StderrDropped > 0 {
		m.stderr.Add(b.Stderr, b.StderrDropped)
	}
	var fx batchEffects
	for _, item := range b.Items {
		e := m.store.Apply(item)
		if e.Settled {
			fx.settled = append(fx.settled, e.Row)
		}
		if e.Task.Seq != 0 {
			fx.tasks = append(fx.tasks, e.Task)
		}
		m.applyItem(item, &fx)
	}
	m.violated(b)
	for seq, n := range b.Duplicates {
		m.store.Duplicated(seq, n)
	}
	if len(fx.logs) > 0 || b.NotificationsDropped > 0 {
		m.logs.Add(fx.logs, b.NotificationsDropped)
	}
	toolsChanged := m.applyWire(b)
	if m.opts.Attached != nil {
		m.attachApplied(fx.settled)
	}
	m.store.Trim()
	m.header.counts, m.header.toolErrors = m.store.Counts, m.store.ToolErrors
	m.table.sync(follow)

	cmds := fx.notified
	if toolsChanged {
		cmds = append(cmds, m.relistTools(true))
	}
	return append(cmds, m.followCmds(fx)...)
}

// applyItem is the screen's share of one item, after the store's: the
// wire log marks late frames, notifications reach the log, a listen's
// acknowledgement the subscriptions, the session's end the header, and a
// cancel starts the server CPU meter.
func (m *Model) applyItem(item any, fx *batchEffects) {
	switch e := item.(type) {
	case session.CancelSent:
		if cmd := m.meterCancel(e); cmd != nil {
			fx.notified = append(fx.notified, cmd)
		}
	case session.LateArrived:
		m.wire.MarkLate(e.Late.At)
	case *rows.LateRun:
		for _, f := range e.Frames {
			m.wire.MarkLate(f.At)
		}
		m.wire.MarkLate(e.Last.At)
	case session.SubscriptionNotified:
		fx.notified = append(fx.notified, m.listenAcked(e))
	case session.Closed:
		m.sessionClosed(e)
	case session.NotificationArrived:
		fx.notified = append(fx.notified, m.notified(e, &fx.logs))
	}
}

// violated puts the batch's protocol violations on the status line.
func (m *Model) violated(b *rows.Batch) {
	if b.Violations == 0 {
		return
	}
	v := b.LastViolation
	text := "protocol violation by the server: " + v.Kind.String() + ": " + v.Detail
	if b.Violations > 1 {
		text = fmt.Sprintf("%d protocol violations by the server; the last: %s: %s", b.Violations, v.Kind, v.Detail)
	}
	m.setStatus(text, true)
}

// applyWire adds the batch's frames to the wire log and reports whether
// the server said its tools changed.
func (m *Model) applyWire(b *rows.Batch) (toolsChanged bool) {
	if len(b.Wire) > 0 || b.WireDropped > 0 {
		m.wire.Add(b.Wire, b.WireDropped)
		m.health.heardFrom(b.Wire, b.WireDropped, m.c.Now())
	}
	for _, r := range b.Wire {
		if r.Dir == wire.In && r.Kind == wire.KindFrame && frameMethod(r.Data) == toolsListChanged {
			toolsChanged = true
		}
	}
	return toolsChanged
}

// followCmds follow the batch's new tasks and fetch the records of its
// settled rows.
func (m *Model) followCmds(fx batchEffects) []tea.Cmd {
	if m.conn == nil {
		return nil
	}
	var cmds []tea.Cmd
	for _, ref := range fx.tasks {
		cmds = append(cmds, followTaskCmd(m.gen, m.conn.Session, ref, m.asks.client))
		// The task is what runs on: select it in place of its creator.
		if r := m.store.Get(ref.Seq); r != nil {
			if sel := m.table.Selected(); (sel != nil && sel.Seq == r.TaskOrNone().Parent.Seq) || m.table.wantSelected == r.TaskOrNone().Parent.Seq {
				m.table.SelectSeq(ref.Seq)
			}
		}
	}
	for _, r := range fx.settled {
		// The server's requests too: their detail shows the answer.
		cmds = append(cmds, infoCmd(m.gen, m.conn.Session, r.Ref()))
	}
	return cmds
}
