package clocktest

import (
	"slices"
	"sync"
	"testing"
	"time"
)

func TestAdvanceFiresDueTimersInOrderAtTheirTimes(t *testing.T) {
	c := New()
	var got []string
	at := func(name string) func() {
		return func() { got = append(got, name+"@"+c.Now().Sub(Epoch).String()) }
	}
	c.AfterFunc(3*time.Second, at("c"))
	c.AfterFunc(time.Second, at("a"))
	c.AfterFunc(time.Second, at("a2"))
	stopped := c.AfterFunc(2*time.Second, at("stopped"))
	c.AfterFunc(10*time.Second, at("later"))
	if !stopped.Stop() {
		t.Fatal("Stop of an armed timer reported false")
	}
	c.AfterFunc(2500*time.Millisecond, func() {
		got = append(got, "b@"+c.Now().Sub(Epoch).String())
		c.AfterFunc(100*time.Millisecond, at("armed-by-b")) // due within this Advance
	})
	c.Advance(5 * time.Second)
	want := []string{"a@1s", "a2@1s", "b@2.5s", "armed-by-b@2.6s", "c@3s"}
	if !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
	if now := c.Now().Sub(Epoch); now != 5*time.Second {
		t.Fatalf("Now after Advance(5s) = Epoch+%v", now)
	}
	if n := c.Armed(); n != 1 {
		t.Fatalf("%d timers armed, want 1 (later)", n)
	}
}

func TestResetAndStop(t *testing.T) {
	c := New()
	fired := 0
	tm := c.AfterFunc(time.Second, func() { fired++ })
	c.Advance(900 * time.Millisecond)
	if !tm.Reset(time.Second) {
		t.Fatal("Reset of an armed timer reported false")
	}
	c.Advance(900 * time.Millisecond)
	if fired != 0 {
		t.Fatal("a reset timer fired at its old time")
	}
	c.Advance(100 * time.Millisecond)
	if fired != 1 || c.Armed() != 0 {
		t.Fatalf("fired %d times, %d armed; want 1, 0", fired, c.Armed())
	}
	if tm.Stop() {
		t.Fatal("Stop of a fired timer reported true")
	}
	if tm.Reset(time.Second) {
		t.Fatal("Reset of a fired timer reported true")
	}
	if c.Armed() != 1 {
		t.Fatalf("%d armed after Reset, want 1", c.Armed())
	}
}

func TestAsyncFiresInGoroutines(t *testing.T) {
	c := New(Async())
	var wg sync.WaitGroup
	wg.Add(2)
	block := make(chan struct{})
	c.AfterFunc(time.Second, func() { <-block; wg.Done() }) // would deadlock if synchronous
	c.AfterFunc(time.Second, func() { wg.Done() })
	c.Advance(time.Second)
	close(block)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("async timers did not both run within 10s")
	}
}
