package check

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// A liveness ping gets --ping-timeout when given, else three times the
// slowest round trip, at least the floor.
func TestPingTimeoutIsDerivedFromTheSlowestRoundTrip(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		given, floor, slowest, want time.Duration
	}{
		{0, 0, 0, pingFloor},
		{0, 0, 2 * time.Second, 6 * time.Second},
		{0, 0, pingFloor / 3, pingFloor},
		{0, 100 * ms, 20 * ms, 100 * ms},
		{0, 100 * ms, 40 * ms, 120 * ms},
		{ms, 100 * ms, 40 * ms, ms},
	} {
		r := &runner{opts: Options{PingTimeout: tc.given, pingFloor: tc.floor}}
		if tc.slowest > 0 {
			r.sawRoundTrip(tc.slowest)
			r.sawRoundTrip(tc.slowest / 2)
		}
		if got := r.pingTimeout(); got != tc.want {
			t.Errorf("given %s, floor %s, slowest round trip %s: ping timeout %s; want %s", tc.given, tc.floor, tc.slowest, got, tc.want)
		}
	}
}

// The run keeps the first maxRoundTrips round trips, and the slowest of
// all.
func TestRoundTripsKeepTheFirstAndTheSlowest(t *testing.T) {
	r := &runner{}
	if got := fastest(r.roundTrips()); got != 0 {
		t.Errorf("fastest of none %s; want 0", got)
	}
	for i := range maxRoundTrips + 1 {
		r.sawRoundTrip(time.Duration(maxRoundTrips+10-i) * time.Millisecond)
	}
	r.sawRoundTrip(time.Second)
	got := r.roundTrips()
	if len(got) != maxRoundTrips || fastest(got) != 11*time.Millisecond || r.slowestRoundTrip() != time.Second {
		t.Errorf("kept %d round trips, fastest %s, slowest %s; want %d, 11ms (not the last one), 1s", len(got), fastest(got), r.slowestRoundTrip(), maxRoundTrips)
	}
}

// The in-flight window is --grace when given, else the fastest round
// trip; check 6's is the slowest of its load's pings, else the run's.
func TestInFlightWindowsComeFromTheRightPings(t *testing.T) {
	ms := time.Millisecond
	r := &runner{}
	r.sawRoundTrip(3 * ms)
	r.sawRoundTrip(5 * ms)
	load := []time.Duration{4 * ms, 9 * ms, 6 * ms}
	for name, tc := range map[string]struct {
		got  window
		want time.Duration
		why  string
	}{
		"the run's":          {r.inFlightWindow(), 3 * ms, "the fastest round trip of 2 pings in this run"},
		"the load's":         {r.loadWindow(load), 9 * ms, "the slowest round trip of 3 pings sent during the load"},
		"a load of one ping": {r.loadWindow(load[:1]), 4 * ms, "of 1 ping sent during the load"},
		"no load pings":      {r.loadWindow(nil), 3 * ms, "the fastest round trip of 2 pings in this run"},
	} {
		if tc.got.d != tc.want || !strings.Contains(tc.got.why, tc.why) {
			t.Errorf("%s window %s (%q); want %s (%q)", name, tc.got.d, tc.got.why, tc.want, tc.why)
		}
	}
	r.opts.Grace = ms
	for name, w := range map[string]window{"the run's": r.inFlightWindow(), "the load's": r.loadWindow(load)} {
		if w.d != ms || w.why != "in-flight window 1ms, given" {
			t.Errorf("with --grace 1ms, %s window %s (%q); want 1ms, given", name, w.d, w.why)
		}
	}
}

// The run measures the round trip with seven pings before the checks:
// the first given 30 s (nothing is known of the server yet), the others
// the derived ping timeout; --ping-timeout bounds every one.
func TestMeasureBoundsEachPing(t *testing.T) {
	t.Parallel()
	for given, tc := range map[time.Duration]struct {
		timeouts []time.Duration
		measured int
	}{
		0:                     {[]time.Duration{firstPingTimeout, pingFloor, pingFloor, pingFloor, pingFloor, pingFloor, pingFloor}, measurePings},
		20 * time.Millisecond: {[]time.Duration{20 * time.Millisecond}, 0},
	} {
		// The server answers pings 50 ms late: a given 20 ms ends the
		// measure at its first ping.
		conn := connected(t, func(b *transporttest.End) { serveMisbehaving(b, misbehaviour{pingDelay: 50 * time.Millisecond}) })
		var mu sync.Mutex
		var timeouts []time.Duration
		sub := conn.Session.SubscribeTo(func(e session.Event) bool {
			if s, ok := e.(session.RequestStarted); ok && s.Info.Method == "ping" {
				mu.Lock()
				timeouts = append(timeouts, s.Info.Timeout)
				mu.Unlock()
			}
			return false
		})
		r := &runner{conn: conn, s: conn.Session, opts: Options{PingTimeout: given}}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r.measure(ctx)
		cancel()
		sub.Close()
		mu.Lock()
		if !slices.Equal(timeouts, tc.timeouts) {
			t.Errorf("--ping-timeout %s: pings timed %v; want %v", given, timeouts, tc.timeouts)
		}
		mu.Unlock()
		if got := len(r.roundTrips()); got != tc.measured {
			t.Errorf("--ping-timeout %s: %d round trips measured; want %d", given, got, tc.measured)
		}
	}
}
