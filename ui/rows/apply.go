package rows

import "github.com/mcpoke/mcpoke/session"

// Effect is what applying one item changed that the screen acts on.
type Effect struct {
	// Row is the row the item changed, if any.
	Row *Row
	// Settled: Row reached a final state, or late traffic came for it
	// (the cancel's times may have settled since): the session's full
	// record of it is worth fetching.
	Settled bool
	// Task is a task that started and still runs, for the screen to
	// follow to its end (polls, tasks/result); zero for none.
	Task session.Ref
}

// Apply folds one item of a Batch into the rows: a session.Event, a
// *ProgressRun or a *LateRun. Items that are not the rows' (stderr,
// notifications, the session's end) change nothing.
func (s *Store) Apply(item any) Effect {
	switch e := item.(type) {
	case session.RequestStarted:
		return s.applyStarted(e)
	case session.StateChanged:
		return s.applyStateChanged(e)
	case session.LateArrived:
		// A late response or error, one by one; late progress comes in
		// runs (*LateRun).
		r := s.lateArrived(e.Ref, []session.LateFrame{e.Late}, e.Late, 1)
		return Effect{Row: r, Settled: r != nil}
	case *LateRun:
		return Effect{Row: s.lateArrived(e.Ref, e.Frames, e.Last, e.Count)}
	case *ProgressRun:
		return Effect{Row: s.progressed(e)}
	case session.CancelSent:
		return Effect{Row: s.cancelSent(e)}
	case session.StrayArrived:
		return Effect{Row: s.strayArrived(e)}
	case session.TaskUpdated:
		return Effect{Row: s.taskUpdated(e)}
	case session.TaskCancelAnswered:
		return Effect{Row: s.taskCancelAnswered(e)}
	case session.SubscriptionNotified:
		return Effect{Row: s.listened(e)}
	case session.AnswerWithheld:
		return s.applyWithheld(e)
	case HoldChanged:
		r := s.Get(e.Ref.Seq)
		if r != nil {
			h := e.Hold
			r.Hold = &h
			r.Touch()
		}
		return Effect{Row: r}
	}
	return Effect{}
}

// applyStarted adds the row of a new request; a task still running is
// for the screen to follow.
func (s *Store) applyStarted(e session.RequestStarted) Effect {
	out := Effect{Row: s.started(e.Info)}
	if e.Info.TaskID != "" && !e.Info.State.Final() {
		out.Task = e.Info.Ref()
	}
	return out
}

// applyStateChanged moves a row to its new state; a final one settles it.
func (s *Store) applyStateChanged(e session.StateChanged) Effect {
	r := s.stateChanged(e)
	return Effect{Row: r, Settled: r != nil && e.To.Final()}
}

// applyWithheld notes an answer to the server that the session did not
// send, as the server had cancelled its request first.
func (s *Store) applyWithheld(e session.AnswerWithheld) Effect {
	if !e.Answered {
		return Effect{}
	}
	s.withheld(e.Ref.Seq, e.Why)
	return Effect{Row: s.Get(e.Ref.Seq)}
}
