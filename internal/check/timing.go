package check

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// The run's waits are derived from the round trip it measures, so that a
// slow but correct server is never failed for being slow.
const (
	// pingFloor is the least a liveness ping is given.
	pingFloor = 5 * time.Second
	// pingRoundTrips is how many of the slowest round trip measured a
	// liveness ping is given, past pingFloor.
	pingRoundTrips = 3
	// firstPingTimeout bounds the run's first ping, which measures the
	// round trip before anything is known of it.
	firstPingTimeout = 30 * time.Second
)

// measure pings the server once before the checks, so that the first
// check already has a round trip to derive its waits from.
func (r *runner) measure(ctx context.Context) {
	timeout := r.opts.PingTimeout
	if timeout <= 0 {
		timeout = firstPingTimeout
	}
	begin := time.Now()
	c, err := mcp.StartPing(ctx, r.s, timeout)
	if err != nil {
		return
	}
	if _, _, err := c.Result(); err == nil {
		r.sawRoundTrip(time.Since(begin))
	}
}

// sawRoundTrip records a ping's round trip.
func (r *runner) sawRoundTrip(d time.Duration) {
	r.rttMu.Lock()
	defer r.rttMu.Unlock()
	r.rtt = max(r.rtt, d)
	r.pings++
}

// slowestRoundTrip is the slowest round trip measured so far, and of
// how many pings.
func (r *runner) slowestRoundTrip() (time.Duration, int) {
	r.rttMu.Lock()
	defer r.rttMu.Unlock()
	return r.rtt, r.pings
}

// pingTimeout is how long a liveness ping is given: --ping-timeout, or
// pingRoundTrips times the slowest round trip measured, at least
// pingFloor.
func (r *runner) pingTimeout() time.Duration {
	if r.opts.PingTimeout > 0 {
		return r.opts.PingTimeout
	}
	floor := pingFloor
	if r.opts.pingFloor > 0 {
		floor = r.opts.pingFloor
	}
	rtt, _ := r.slowestRoundTrip()
	return max(floor, pingRoundTrips*rtt)
}

// grace is the in-flight window after a cancel: a frame that arrives
// within it may have been written before the server could read the
// cancel (the cancel takes part of a round trip to get there, the frame
// the rest to come back), and one written after it cannot arrive sooner.
// Twice the slowest round trip measured in this run by its pings (check
// 6 pings during its load, so that its window has the load's queues in
// it); or Options.Grace.
func (r *runner) grace() time.Duration {
	if r.opts.Grace > 0 {
		return r.opts.Grace
	}
	rtt, _ := r.slowestRoundTrip()
	return 2 * rtt
}

// graceWhy says which in-flight window was used, for the evidence.
func (r *runner) graceWhy() string {
	if r.opts.Grace > 0 {
		return fmt.Sprintf("in-flight window %s, given", human(r.grace()))
	}
	rtt, n := r.slowestRoundTrip()
	return fmt.Sprintf("in-flight window %s: twice the slowest round trip (%s) of the %d %s in this run",
		human(r.grace()), human(rtt), n, plural(n, "ping", "pings"))
}

// afterCancelRule is the sentence a message for a cancelled request
// breaks in this run's era and transport: in 2026-07-28 the transport
// pages say the server MUST NOT send any further messages for it; before,
// legacy (a SHOULD of the cancellation page) holds.
func (r *runner) afterCancelRule(legacy Rule) Rule {
	if !r.conn.Peer().Modern() {
		return legacy
	}
	if r.conn.Transport() == "http" {
		return ruleNoFurtherHTTP
	}
	return ruleNoFurtherStdio
}

// rttSoFar is the slowest round trip measured so far.
func (r *runner) rttSoFar() time.Duration {
	rtt, _ := r.slowestRoundTrip()
	return rtt
}
