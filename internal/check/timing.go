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
	// maxRoundTrips bounds the round trips kept.
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

// measurePings is how many pings measure the round trip before the
// checks: the first is often slow (a cold server).
const measurePings = 7

// measure pings the server a few times before the checks, so that the
// first check already has a round trip to derive its waits from.
func (r *runner) measure(ctx context.Context) {
	timeout := r.opts.PingTimeout
	if timeout <= 0 {
		timeout = firstPingTimeout
	}
	for range measurePings {
		begin := time.Now()
		c, err := mcp.StartPing(ctx, r.s, timeout)
		if err != nil {
			return
		}
		if _, _, err := c.Result(); err != nil {
			return
		}
		r.sawRoundTrip(time.Since(begin))
		timeout = r.pingTimeout()
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

// fastest is the least of ds; zero when empty.
func fastest(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return slices.Min(ds)
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
// sooner than the fastest round trip measured cannot be the server's
// reaction to the cancel (the cancel had to get there and the frame back),
// so it was written before the server read it and crossed it on the wire.
// A frame that comes later may be either, and is counted: a ping's
// round trip includes the server's work on the ping, and a server may act
// on a cancel faster than it answers one (go-sdk answers a cancelled call
// 1 ms after the cancel, its server/discover in 3 ms). The fastest of the
// run's pings (check 6 has its own: loadWindow). Options.Grace replaces
// it.
type window struct {
	d   time.Duration
	why string
}

func (r *runner) windowOf(rtts []time.Duration, of string) window {
	if r.opts.Grace > 0 {
		return window{r.opts.Grace, fmt.Sprintf("in-flight window %s, given", human(r.opts.Grace))}
	}
	d := fastest(rtts)
	return window{d, fmt.Sprintf("in-flight window %s: the fastest round trip of %d %s %s", human(d), len(rtts), plural(len(rtts), "ping", "pings"), of)}
}

// loadWindow is check 6's in-flight window: the slowest round trip of
// the pings sent during its load. Under load the server's frames queue
// (a progress written before the cancel was read waits behind the
// others), and a ping's answer waits in the same queue.
func (r *runner) loadWindow(rtts []time.Duration) window {
	if r.opts.Grace > 0 || len(rtts) == 0 {
		return r.inFlightWindow()
	}
	d := slices.Max(rtts)
	return window{d, fmt.Sprintf("in-flight window %s: the slowest round trip of %d %s sent during the load, whose queues a crossing frame waits in too",
		human(d), len(rtts), plural(len(rtts), "ping", "pings"))}
}

// inFlightWindow is the window checks 1, 2 and 8 use: of the run's pings
// so far.
func (r *runner) inFlightWindow() window { return r.windowOf(r.roundTrips(), "in this run") }

// stopWorkRule is the cancellation page's SHOULD stop processing, in
// the words of the run's era (check 10).
func (r *runner) stopWorkRule() Rule {
	if r.conn.Peer().Era2026() {
		return ruleStopWorkModern
	}
	return ruleStopWork
}

// afterCancelRule is the sentence a message for a cancelled request
// breaks in this run's era and transport: in 2026-07-28 the transport
// pages say the server MUST NOT send any further messages for it; before,
// legacy (a SHOULD of the cancellation page) holds.
func (r *runner) afterCancelRule(legacy Rule) Rule {
	if !r.conn.Peer().Era2026() {
		return legacy
	}
	if r.conn.Transport() == "http" {
		return ruleNoFurtherHTTP
	}
	return ruleNoFurtherStdio
}
