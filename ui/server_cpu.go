package ui

import (
	"fmt"
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
// mcpoke's, not Linux). The watch returns the verdict, or false when
// there was nothing to judge.
func meterServerCPU(pid int) (watch func() (cpumeter.AfterCancel, bool)) {
	at := time.Now()
	s := cpumeter.StartSampler(pid, cpuEvery, int(cpuWatch/cpuEvery)+2)
	if s == nil {
		return nil
	}
	return func() (cpumeter.AfterCancel, bool) {
		time.Sleep(time.Until(at.Add(cpuWatch)))
		return cpumeter.JudgeAfterCancel(s.Finish(), at)
	}
}

// cpuVerdictLine says a verdict as call's line does, its times as the
// TUI writes them: "quiet after 0.3s; 0.02s CPU after the cancel".
func cpuVerdictLine(a cpumeter.AfterCancel) string {
	cpu := fmt.Sprintf("%.2fs", a.CPU.Seconds())
	switch a.Verdict {
	case "quiet":
		return "quiet after " + formatDuration(a.QuietAfter) + "; " + cpu + " CPU after the cancel"
	case "burning":
		return fmt.Sprintf("still burning %.2f CPU %s after the cancel; %s CPU after it: the work goes on", a.Rate, formatDuration(a.Watched), cpu)
	}
	return fmt.Sprintf("%s CPU in the %s after the cancel (too short or too irregular to say whether the work stopped)", cpu, formatDuration(a.Watched))
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
		a, ok := watch()
		line := cpuVerdictLine(a)
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
