package ui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// applyBatch brings the model's rows up to date with a batch of events
// and returns the commands that fetch the full record of rows that
// settled.
func (m *Model) applyBatch(b *feedBatch) []tea.Cmd {
	follow := m.table.atBottom()
	// Stderr first: a Closed event in this batch quotes its last line.
	if len(b.Stderr) > 0 || b.StderrDropped > 0 {
		m.stderr.Add(b.Stderr, b.StderrDropped)
	}
	var fetch []*requestRow
	var logs []logLine
	var notified []tea.Cmd
	var tasks []session.Ref
	for _, item := range b.Items {
		switch e := item.(type) {
		case session.RequestStarted:
			m.store.started(e.Info)
			if e.Info.TaskID != "" && !e.Info.State.Final() {
				tasks = append(tasks, e.Info.Ref())
			}
		case session.TaskUpdated:
			m.store.taskUpdated(e)
		case session.TaskCancelAnswered:
			m.store.taskCancelAnswered(e)
		case *progressRun:
			m.store.progressed(e)
		case session.StateChanged:
			if r := m.store.stateChanged(e); r != nil && e.To.Final() {
				fetch = append(fetch, r)
			}
		case session.CancelSent:
			m.store.cancelSent(e)
			if cmd := m.meterCancel(e); cmd != nil {
				notified = append(notified, cmd)
			}
		case session.LateArrived:
			m.wire.MarkLate(e.Late.At)
			if r := m.store.lateArrived(e.Ref, []session.LateFrame{e.Late}, e.Late, 1); r != nil {
				fetch = append(fetch, r) // cancel times may have settled since
			}
		case *lateRun:
			for _, f := range e.Frames {
				m.wire.MarkLate(f.At)
			}
			m.wire.MarkLate(e.Last.At)
			m.store.lateArrived(e.Ref, e.Frames, e.Last, e.Count)
		case session.StrayArrived:
			m.store.strayArrived(e)
		case session.SubscriptionNotified:
			m.store.listened(e)
			notified = append(notified, m.listenAcked(e))
		case session.Closed:
			m.sessionClosed(e)
		case session.NotificationArrived:
			notified = append(notified, m.notified(e, &logs))
		case session.AnswerWithheld:
			if e.Answered {
				m.store.withheld(e.Ref.Seq, e.Why)
			}
		}
	}
	if b.Violations > 0 {
		v := b.LastViolation
		text := "protocol violation by the server: " + v.Kind.String() + ": " + v.Detail
		if b.Violations > 1 {
			text = fmt.Sprintf("%d protocol violations by the server; the last: %s: %s", b.Violations, v.Kind, v.Detail)
		}
		m.setStatus(text, true)
	}
	for seq, n := range b.Duplicates {
		m.store.duplicated(seq, n)
	}
	if len(logs) > 0 || b.NotificationsDropped > 0 {
		m.logs.Add(logs, b.NotificationsDropped)
	}
	if len(b.Wire) > 0 || b.WireDropped > 0 {
		m.wire.Add(b.Wire, b.WireDropped)
		m.health.heardFrom(b.Wire, b.WireDropped, m.c.Now())
	}
	toolsChanged := false
	for _, r := range b.Wire {
		if r.Dir == wire.In && r.Kind == wire.KindFrame && frameMethod(r.Data) == toolsListChanged {
			toolsChanged = true
		}
	}
	if m.opts.Attached != nil {
		m.attachApplied(fetch)
	}
	m.store.trim()
	m.header.counts, m.header.toolErrors = m.store.counts, m.store.toolErrors
	m.table.sync(follow)

	cmds := notified
	if toolsChanged {
		cmds = append(cmds, m.relistTools(true))
	}
	if m.conn != nil {
		for _, ref := range tasks {
			cmds = append(cmds, followTaskCmd(m.gen, m.conn.Session, ref, m.asks.client))
			// The task is what runs on: select it in place of its creator.
			if r := m.store.get(ref.Seq); r != nil {
				if sel := m.table.Selected(); (sel != nil && sel.seq == r.parent.Seq) || m.table.wantSelected == r.parent.Seq {
					m.table.SelectSeq(ref.Seq)
				}
			}
		}
		for _, r := range fetch {
			// The server's requests too: their detail shows the answer.
			cmds = append(cmds, infoCmd(m.gen, m.conn.Session, r.ref()))
		}
	}
	return cmds
}
