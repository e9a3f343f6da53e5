package check

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transporttest"
)

// runCounting is run, also returning how many work calls the server got.
func runCounting(t *testing.T, bad misbehaviour, opts Options) (*Report, int) {
	t.Helper()
	var srv *misbehavingServer
	conn, answerer := connectedWith(t, func(b *transporttest.End) { srv = serveMisbehaving(b, bad) }, "", true)
	opts.Answerer = answerer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Run(ctx, conn, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return rep, srv.nCalls
}

// A call that ends before check 1 can cancel it is tried once more: a
// second call that stays underway is cancelled and graded.
func TestCheck1TriesASecondCallWhenTheFirstEndsTooSoon(t *testing.T) {
	t.Parallel()
	rep, calls := runCounting(t, misbehaviour{quickFrom: 2, quickTo: 2}, testOptions(1))
	expect(t, rep, 1, Pass, Should)
	if calls != 3 {
		t.Errorf("the server got %d work calls; want 3 (the probe's, the one that ended too soon, the one cancelled)", calls)
	}
}

// Two calls that end before they can be cancelled skip check 1, saying
// so, without a third.
func TestCheck1SkipsAfterTwoCallsEndTooSoon(t *testing.T) {
	t.Parallel()
	rep, calls := runCounting(t, misbehaviour{quickFrom: 2, quickTo: 1 << 30}, testOptions(1))
	c := expect(t, rep, 1, Skip, Should)
	if !strings.Contains(c.Reason, "before it could be cancelled (twice)") {
		t.Errorf("check 1 skipped with %q; want the two calls that ended first", c.Reason)
	}
	if calls != 3 {
		t.Errorf("the server got %d work calls; want 3 (the probe's and two tries)", calls)
	}
}

// A server that dies on the cancel fails checks 1 and 2 on the race
// conditions' MUST, though nothing came for the call after its cancel.
func TestChecks1And2FailAServerThatDiesOnTheCancel(t *testing.T) {
	t.Parallel()
	for _, id := range []int{1, 2} {
		// One run each: the other would be skipped, the connection gone.
		rep := run(t, misbehaviour{dieOnCancelN: 2}, testOptions(id))
		c := expect(t, rep, id, Fail, Must)
		if c.Sentence != ruleGraceful.Sentence || !factContains(c, "while listening after the cancel") {
			t.Errorf("check %d fails on %q, facts %q; want the race conditions' MUST and the death while listening", id, c.Sentence, c.Evidence.Facts)
		}
	}
}
