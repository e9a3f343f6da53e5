package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/cpumeter"
	"github.com/mcpoke/mcpoke/session"
)

// The detail of a cancelled row says whether a local stdio server went on
// working after the cancel: the CPU time of its process family, watched
// for cpuWatch from the cancel, with the meter of call's "server CPU after
// cancel" line and check 10.

const (
	// cpuWatch is how long after a cancel the server's CPU is watched.
	cpuWatch = 3 * time.Second
	// cpuEvery is how often it is sampled meanwhile.
	cpuEvery = 50 * time.Millisecond
)

// meterServerCPU starts watching the family of the server process pid
// from now, or returns nil when it cannot be metered (no process of
// mcpoke's, not Linux). The watch returns the verdict's line, or false
// when there was nothing to judge.
func meterServerCPU(pid int) (watch func() (string, bool)) {
	at := time.Now()
	s := cpumeter.StartSampler(pid, cpuEvery, int(cpuWatch/cpuEvery)+2)
	if s == nil {
		return nil
	}
	return func() (string, bool) {
		time.Sleep(time.Until(at.Add(cpuWatch)))
		a, ok := cpumeter.JudgeAfterCancel(s.Finish(), at)
		return a.Line(), ok
	}
}

// serverCPU is the meter's line for each cancelled row, by seq: while it
// watches, then its verdict.
type serverCPU struct{ lines map[uint64]string }

// cpuMeasuredMsg brings a watch's verdict.
type cpuMeasuredMsg struct {
	forGen
	seq  uint64
	line string
}

// meterCancel starts watching the server's CPU after the cancel e, when
// the server is a local process; nil otherwise.
func (m *Model) meterCancel(e session.CancelSent) tea.Cmd {
	if m.conn == nil || e.Err != nil || m.cpu.lines[e.Ref.Seq] != "" {
		return nil
	}
	meter := meterServerCPU
	if m.opts.cpuMeter != nil {
		meter = m.opts.cpuMeter
	}
	watch := meter(m.conn.ServerPID())
	if watch == nil {
		return nil
	}
	if m.cpu.lines == nil {
		m.cpu.lines = map[uint64]string{}
	}
	m.cpu.lines[e.Ref.Seq] = "watching for " + formatDuration(cpuWatch) + " after the cancel…"
	gen, seq := m.gen, e.Ref.Seq
	return func() tea.Msg {
		line, ok := watch()
		if !ok {
			line = "nothing to judge: the server's processes could not be read after the cancel"
		}
		return cpuMeasuredMsg{forGen{gen}, seq, line}
	}
}

// cpuMeasured keeps a watch's verdict for its row's detail.
func (m *Model) cpuMeasured(msg cpuMeasuredMsg) {
	if m.cpu.lines == nil {
		m.cpu.lines = map[uint64]string{}
	}
	m.cpu.lines[msg.seq] = msg.line
}

// cpuLine is the detail's line for row seq: "" when it was not metered.
func (c *serverCPU) line(seq uint64) string { return c.lines[seq] }
