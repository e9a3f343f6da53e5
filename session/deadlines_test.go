package session

import (
	"slices"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/clocktest"
)

// The shared timer fires each deadline at its time, in order, whatever
// the order they were set, stopped or reset in; and it keeps one clock
// timer armed while any deadline is left, none after.
func TestDeadlinesFireInOrderOnOneTimer(t *testing.T) {
	c := clocktest.New()
	ds := &deadlines{clock: c}
	var got []string
	at := func(name string) func() {
		return func() { got = append(got, name+"@"+c.Now().Sub(clocktest.Epoch).String()) }
	}
	ds.AfterFunc(3*time.Second, at("c"))
	ds.AfterFunc(time.Second, at("a"))
	ds.AfterFunc(time.Second, at("a2"))
	stopped := ds.AfterFunc(2*time.Second, at("stopped"))
	moved := ds.AfterFunc(time.Second, at("moved"))
	later := ds.AfterFunc(10*time.Second, at("later"))
	if n := c.Armed(); n != 1 {
		t.Fatalf("%d clock timers armed for 6 deadlines, want 1", n)
	}
	if !stopped.Stop() || stopped.Stop() {
		t.Fatal("Stop: true for an armed deadline, then false")
	}
	if !moved.Reset(2500 * time.Millisecond) {
		t.Fatal("Reset of an armed deadline reported false")
	}
	c.Advance(5 * time.Second)
	want := []string{"a@1s", "a2@1s", "moved@2.5s", "c@3s"}
	if !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	if n := c.Armed(); n != 1 {
		t.Fatalf("%d clock timers armed with one deadline left, want 1", n)
	}
	if later.Reset(time.Second); !later.Stop() {
		t.Fatal("Stop after Reset reported false")
	}
	if n := c.Armed(); n != 0 {
		t.Fatalf("%d clock timers armed with no deadline left, want 0", n)
	}
	// A fired deadline can be set again, as a timer can.
	again := ds.AfterFunc(time.Second, at("again"))
	c.Advance(time.Second)
	if again.Stop() {
		t.Fatal("Stop of a fired deadline reported true")
	}
	again.Reset(time.Second)
	c.Advance(time.Second)
	if got[len(got)-2] != "again@6s" || got[len(got)-1] != "again@7s" {
		t.Fatalf("fired %v, want again@6s and again@7s last", got)
	}
}

// An earlier deadline set after a later one moves the timer forward.
func TestDeadlinesEarlierDeadlineRearms(t *testing.T) {
	c := clocktest.New()
	ds := &deadlines{clock: c}
	var fired []string
	ds.AfterFunc(time.Minute, func() { fired = append(fired, "minute") })
	ds.AfterFunc(time.Second, func() { fired = append(fired, "second") })
	c.Advance(time.Second)
	if !slices.Equal(fired, []string{"second"}) {
		t.Fatalf("after 1s fired %v, want [second]", fired)
	}
	c.Advance(time.Minute)
	if !slices.Equal(fired, []string{"second", "minute"}) {
		t.Fatalf("after 1m1s fired %v", fired)
	}
}

// Lazy (the real clock): the timer is not stopped when the last deadline
// goes, and firing with nothing due is harmless.
func TestDeadlinesLazyKeepsTheTimer(t *testing.T) {
	c := clocktest.New()
	ds := &deadlines{clock: c, lazy: true}
	fired := 0
	ds.AfterFunc(time.Second, func() { fired++ }).Stop()
	if n := c.Armed(); n != 1 {
		t.Fatalf("lazy: %d clock timers armed after the only deadline stopped, want 1", n)
	}
	ds.AfterFunc(2*time.Second, func() { fired++ })
	c.Advance(time.Second) // fires with nothing due, re-arms for 2s
	if fired != 0 {
		t.Fatalf("fired %d at 1s", fired)
	}
	c.Advance(time.Second)
	if fired != 1 || c.Armed() != 0 {
		t.Fatalf("at 2s: fired %d, %d armed; want 1, 0", fired, c.Armed())
	}
}

// A session that ends leaves no timer of its deadlines armed, lazy or not.
func TestDeadlinesStopDisarms(t *testing.T) {
	c := clocktest.New()
	ds := &deadlines{clock: c, lazy: true}
	ds.AfterFunc(time.Second, func() {}).Stop()
	ds.stop()
	if n := c.Armed(); n != 0 {
		t.Fatalf("%d clock timers armed after stop, want 0", n)
	}
}
