package ui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/clock"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// healthTimeout is how long a health ping may go unanswered before the
// header warns; the warning then counts on, once a second, until the
// answer comes.
const healthTimeout = 10 * time.Second

// DefaultPingInterval is how long the server may be silent before the
// health check pings it (--ping-interval).
const DefaultPingInterval = 30 * time.Second

// health is the periodic ping of protocols up to 2025-11-25 (ping.mdx:
// "SHOULD periodically issue pings to detect connection health"). It pings
// only after interval without a frame from the server: traffic already
// shows the connection lives. Its requests are housekeeping, left out of
// the requests table (a row every half minute would bury the person's
// own); the header shows the outcome and the wire log the frames.
type health struct {
	interval time.Duration
	// armedGen is the connection whose timer is armed; 0 for none.
	armedGen int
	// heard is when the server's last frame arrived (or the session
	// became ready).
	heard time.Time
	// waiting: a health ping sent at sentAt has no answer yet; warned:
	// the log was told it went unanswered.
	waiting, warned bool
	sentAt          time.Time
	// rtt is the last answered ping's round trip, known when answered.
	rtt      time.Duration
	answered bool
}

// healthDueMsg: the health timer of a connection fired.
type healthDueMsg struct{ forGen }

// healthSentMsg: a health ping was written, or failed to be.
type healthSentMsg struct {
	forGen
	call *session.Call
	err  error
}

// healthDoneMsg: a health ping ended; ran is its round trip, answered
// says the server answered it (a result or an error response), not that
// the connection failed it.
type healthDoneMsg struct {
	forGen
	state    session.State
	answered bool
	ran      time.Duration
}

// startHealth starts the health check of a newly ready connection, when
// it is on and the protocol has ping.
func (m *Model) startHealth() tea.Cmd {
	h := &m.health
	h.waiting, h.answered, h.warned = false, false, false
	if h.interval <= 0 || m.conn == nil || !mcp.HealthPings(m.conn.Session) {
		return nil
	}
	h.heard = m.c.Now()
	return m.healthAfter(h.interval)
}

// heardFrom notes the server's traffic in a batch of wire records: its
// JSON-RPC frames, not the HTTP transport's own notes (a GET stream
// retrying against a dead server is no sign of health). Records dropped
// unseen were a flood, from the server most of all.
func (h *health) heardFrom(records []wire.Record, dropped int, now time.Time) {
	if dropped > 0 {
		h.heard = now
		return
	}
	for _, r := range records {
		if r.Dir == wire.In && r.Kind == wire.KindFrame {
			h.heard = now
			return
		}
	}
}

// updateHealth takes the health check's messages.
func (m *Model) updateHealth(msg tea.Msg) tea.Cmd {
	h := &m.health
	switch msg := msg.(type) {
	case healthDueMsg:
		h.armedGen = 0
		return m.healthDue()
	case healthSentMsg:
		if msg.err != nil {
			h.waiting = false
			return nil
		}
		m.wire.MarkHealth(msg.call.ID().String())
		return awaitHealthCmd(m.gen, m.conn.Session, msg.call)
	case healthDoneMsg:
		h.waiting = false
		if msg.answered {
			// Any answer, an error too, shows the server reads and writes.
			h.rtt, h.answered = msg.ran, true
		}
		if h.warned {
			h.warned = false
			return healthLogCmd(m.conn.Session, slog.LevelInfo, "health ping answered late", "after", msg.ran.Round(time.Millisecond), "state", msg.state.String())
		}
	}
	return nil
}

// healthLogCmd writes a finding of the health check to the session's log
// (--log): the spec asks that ping failures be logged for diagnostics.
func healthLogCmd(s *session.Session, level slog.Level, msg string, args ...any) tea.Cmd {
	return func() tea.Msg {
		s.Logger().Log(context.Background(), level, msg, args...)
		return nil
	}
}

// healthDue pings when the server has been silent for the interval, and
// arms the timer again for when that can next be so, or, while a ping
// waits, for the warning and its count.
func (m *Model) healthDue() tea.Cmd {
	h := &m.health
	if m.conn == nil || m.header.state != connReady || m.quitting {
		return nil // a reconnect starts it again
	}
	now := m.c.Now()
	switch {
	case h.waiting:
		if late := h.sentAt.Add(healthTimeout).Sub(now); late > 0 {
			return m.healthAfter(late)
		}
		if !h.warned {
			h.warned = true
			return tea.Batch(m.healthAfter(time.Second),
				healthLogCmd(m.conn.Session, slog.LevelWarn, "health ping unanswered", "after", now.Sub(h.sentAt).Round(time.Millisecond)))
		}
		return m.healthAfter(time.Second)
	case now.Sub(h.heard) >= h.interval:
		h.waiting, h.sentAt = true, now
		// The sooner of the warning and the next ping: an interval
		// shorter than healthTimeout still paces the pings.
		return tea.Batch(healthPingCmd(m.gen, m.conn.Session), m.healthAfter(min(healthTimeout, h.interval)))
	}
	return m.healthAfter(h.heard.Add(h.interval).Sub(now))
}

// healthAfter fires healthDueMsg after d on the UI's timer clock, unless
// a timer of this connection is already armed.
func (m *Model) healthAfter(d time.Duration) tea.Cmd {
	if m.health.armedGen == m.gen {
		return nil
	}
	m.health.armedGen = m.gen
	gen, clk := m.gen, m.opts.clock
	if clk == nil {
		clk = clock.Real()
	}
	return func() tea.Msg {
		fired := make(chan struct{})
		clk.AfterFunc(d, func() { close(fired) })
		<-fired
		return healthDueMsg{forGen{gen}}
	}
}

// healthPingCmd sends one health ping.
func healthPingCmd(gen int, s *session.Session) tea.Cmd {
	return func() tea.Msg {
		c, err := mcp.StartHealthPing(context.Background(), s)
		return healthSentMsg{forGen: forGen{gen}, call: c, err: err}
	}
}

// awaitHealthCmd waits for a health ping's end; a closed session ends it.
func awaitHealthCmd(gen int, s *session.Session, c *session.Call) tea.Cmd {
	return func() tea.Msg {
		_, state, err := c.Result()
		var rpcErr *session.RPCError
		msg := healthDoneMsg{forGen: forGen{gen}, state: state, answered: state == session.Completed || errors.As(err, &rpcErr)}
		if info, ok := s.Request(c.Ref()).Info(); ok && !info.Ended.IsZero() {
			msg.ran = info.Ended.Sub(info.Started)
		}
		return msg
	}
}

// view is what the header says of the connection's health: the last
// round trip, or, in warning colour and in place of "● ready", how long a
// ping has gone unanswered,
// with short, its form for a narrow screen (the header never drops a
// warning); short is "" for a round trip.
func (h *health) view(st *styles, now time.Time) (text, short string) {
	if h.waiting {
		if waited := now.Sub(h.sentAt); waited >= healthTimeout {
			s := int(waited / time.Second)
			return st.BadgeWarn.Render(fmt.Sprintf("● no answer to ping for %ds", s)), st.BadgeWarn.Render(fmt.Sprintf("● ping ✗ %ds", s))
		}
	}
	if h.answered {
		return st.Muted.Render("ping " + roundTrip(h.rtt)), ""
	}
	return "", ""
}

// healthView is the header's part for the health check, and a warning's
// short form; "" when it has nothing to say.
func (h *header) healthView() (text, short string) {
	if h.health == nil || h.state != connReady {
		return "", ""
	}
	return h.health.view(h.c.Styles, h.c.Now())
}
