package rows

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

func progressEvent(seq uint64, n int) session.ProgressUpdated {
	total := 1e6
	return session.ProgressUpdated{Ref: session.Ref{Seq: seq, ID: session.IntID(int64(seq))},
		Progress: session.Progress{Progress: float64(n), Total: &total}}
}

func TestFeedFoldsProgressAndKeepsOrder(t *testing.T) {
	events := make(chan session.Event, 16)
	f := NewFeed(events, time.Millisecond)
	defer f.Stop()
	const n = 100_000
	go func() {
		events <- session.RequestStarted{Info: session.RequestInfo{Seq: 7}}
		for i := 1; i <= n; i++ {
			events <- progressEvent(7, i)
		}
		events <- session.StateChanged{Ref: session.Ref{Seq: 7}, To: session.Completed}
		close(events)
	}()
	var (
		batches, progress int
		latest            float64
		order             []string
	)
	for b := f.Next(); b != nil; b = f.Next() {
		batches++
		for _, it := range b.Items {
			switch e := it.(type) {
			case session.RequestStarted:
				order = append(order, "started")
			case *ProgressRun:
				progress += e.Count
				latest = e.Latest.Progress
				if len(e.Recent) > batchRecentProgress {
					t.Fatalf("a run kept %d recent updates", len(e.Recent))
				}
				if len(order) == 0 || order[len(order)-1] != "progress" {
					order = append(order, "progress")
				}
			case session.StateChanged:
				order = append(order, "changed")
			}
		}
		if b.Ended {
			break
		}
	}
	if progress != n || latest != n {
		t.Errorf("folded %d progress updates, latest %v; want %d, %d", progress, latest, n, n)
	}
	if got := fmt.Sprint(order); got != "[started progress changed]" {
		t.Errorf("order %s", got)
	}
	if batches >= n/10 {
		t.Errorf("%d batches for %d events: not coalescing", batches, n)
	}
}

func TestFeedBoundsLateStderrAndWire(t *testing.T) {
	events := make(chan session.Event)
	f := NewFeed(events, time.Hour) // nothing is delivered while we fill it
	defer f.Stop()
	for i := range 10_000 {
		f.add(session.LateArrived{Ref: session.Ref{Seq: 3}, Late: session.LateFrame{Kind: session.LateProgress}})
		f.add(session.StderrLine{Line: fmt.Sprint(i)})
		f.add(session.StrayArrived{Kind: session.LateResponse})
		f.add(session.DuplicateArrived{Ref: session.Ref{Seq: 4}})
		f.add(session.NoiseArrived{})
		f.AddRecord(wire.Record{Kind: wire.KindFrame})
	}
	f.mu.Lock()
	b := f.cur
	f.mu.Unlock()
	run := b.Items[b.lateAt[3]].(*LateRun)
	if run.Count != 10_000 || len(run.Frames) != batchLateFrames {
		t.Errorf("late run counts %d and keeps %d", run.Count, len(run.Frames))
	}
	if len(b.Stderr) >= 2*batchStderr || len(b.Stderr)+b.StderrDropped != 10_000 || b.Stderr[len(b.Stderr)-1].Line != "9999" {
		t.Errorf("stderr keeps %d, dropped %d", len(b.Stderr), b.StderrDropped)
	}
	if len(b.Wire) >= 2*batchWire || len(b.Wire)+b.WireDropped != 10_000 {
		t.Errorf("wire keeps %d, dropped %d", len(b.Wire), b.WireDropped)
	}
	if b.strays != batchStrays || b.StrayDropped != 10_000-batchStrays {
		t.Errorf("strays keeps %d, dropped %d", b.strays, b.StrayDropped)
	}
	if b.Duplicates[4] != 10_000 || b.Noise != 10_000 {
		t.Errorf("duplicates %d noise %d", b.Duplicates[4], b.Noise)
	}
	if len(b.Items) != 1+batchStrays {
		t.Errorf("%d items: floods should fold", len(b.Items))
	}
}

func TestFeedStopUnblocksNext(t *testing.T) {
	f := NewFeed(make(chan session.Event), time.Millisecond)
	done := make(chan *Batch)
	go func() { done <- f.Next() }()
	f.Stop()
	select {
	case b := <-done:
		if b != nil {
			t.Error("Next returned a batch after Stop")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next did not return after Stop")
	}
}

func TestFeedKeepsCancelSentBetweenProgress(t *testing.T) {
	events := make(chan session.Event)
	f := NewFeed(events, time.Hour)
	defer f.Stop()
	sent := session.CancelSent{Ref: session.Ref{Seq: 7}, At: time.Unix(1, 0)}
	f.add(progressEvent(7, 1))
	f.add(sent)
	f.add(progressEvent(7, 2))
	f.mu.Lock()
	items := append([]any(nil), f.cur.Items...)
	f.mu.Unlock()
	if len(items) != 2 || items[1] != any(sent) {
		t.Errorf("batch items %#v, want the progress run then %#v", items, sent)
	}
}
