package check

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// The run's waits are derived from the round trip it measures, so that a
// slow but correct server is never failed for being slow.
const (
	// maxRoundTrips bounds the round trips kept for the median.
	maxRoundTrips = 256
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
	if len(r.rtts) < maxRoundTrips {
		r.rtts = append(r.rtts, d)
	}
}

// slowestRoundTrip is the slowest round trip measured so far.
func (r *runner) slowestRoundTrip() time.Duration {
	r.rttMu.Lock()
	defer r.rttMu.Unlock()
	return r.rtt
}

// roundTrips are the round trips measured so far.
func (r *runner) roundTrips() []time.Duration {
	r.rttMu.Lock()
	defer r.rttMu.Unlock()
	return slices.Clone(r.rtts)
}

// median is the middle of ds; zero when empty.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
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
	return max(floor, pingRoundTrips*r.slowestRoundTrip())
}

// window is the in-flight window after a cancel: a frame that arrives
// within it may have been written before the server could read the
// cancel (the cancel takes part of a round trip to get there, the frame
// the rest to come back), and one the server wrote after reading it
// cannot arrive sooner. One typical round trip: the median of rtts (the
// run's pings; check 6 pings during its load, so that its window has the
// load's queues in it). Options.Grace replaces it.
type window struct {
	d   time.Duration
	why string
}

func (r *runner) windowOf(rtts []time.Duration, of string) window {
	if r.opts.Grace > 0 {
		return window{r.opts.Grace, fmt.Sprintf("in-flight window %s, given", human(r.opts.Grace))}
	}
	d := median(rtts)
	return window{d, fmt.Sprintf("in-flight window %s: the median round trip of %d %s %s", human(d), len(rtts), plural(len(rtts), "ping", "pings"), of)}
}

// inFlightWindow is the window checks 1, 2 and 8 use: of the run's pings
// so far.
func (r *runner) inFlightWindow() window { return r.windowOf(r.roundTrips(), "in this run") }

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
