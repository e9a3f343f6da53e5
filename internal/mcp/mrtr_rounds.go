package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpoke/mcpoke/session"
)

// Round is one round of a multi round-trip request: its request, and when
// the server answered input_required, what it asked and what was answered.
type Round struct {
	// N counts from 1, the original request.
	N    int
	Call *session.Call
	// Input is the round's input_required result; nil for a round that
	// ended otherwise (complete, an error, cancelled).
	Input   *InputRequired
	Answers []InputAnswer
}

// RetryRound sends the next round of the request prev (a round of first's)
// with responses and state: the same method and params with
// inputResponses and the exact requestState, under a new id, linked to
// first in the table. opts are the original request's (its Mcp-Param
// headers, timeouts, log level).
func RetryRound(ctx context.Context, s *session.Session, first session.Ref, n int, prev session.RequestInfo,
	responses map[string]json.RawMessage, state json.RawMessage, opts session.CallOptions) (*session.Call, error) {
	method := prev.Method
	params, err := RetryParams(prev.Params, responses, state)
	if err != nil {
		return nil, err
	}
	// The state is in params now. The round answered lets go of it (in
	// its row, and here) before the send copies params: a state of many
	// megabytes is not held once more while it is sent.
	s.Shed(prev.Ref(), ElideState)
	prev, state = session.RequestInfo{}, nil
	opts.Round = session.Round{N: n, First: first}
	return s.Call(ctx, method, params, opts)
}

// FollowRounds follows the request first through its rounds: while its
// result is input_required, it answers the inputRequests (AnswerInputs)
// and retries (RetryRound), up to MaxRounds requests. sent, if set, is
// told of each retry as it is sent (to cancel the current one). It
// returns every round, the last being the request's outcome, and
// ErrAbandoned when ctx ended between rounds (nothing more was sent),
// ErrTooManyRounds, or why a round could not be read or retried.
func (c *ClientSide) FollowRounds(ctx context.Context, s *session.Session, first *session.Call,
	opts session.CallOptions, sent func(*session.Call)) ([]Round, error) {
	rounds := []Round{{N: 1, Call: first}}
	for {
		r := &rounds[len(rounds)-1]
		res, state, _ := r.Call.Result()
		if state != session.Completed {
			return rounds, nil
		}
		// The session's reading decides: before 2026-07-28 no result is
		// input_required, whatever members it has.
		if info, _ := s.Request(r.Call.Ref()).Info(); info.ResultType != ResultInputRequired {
			return rounds, nil
		}
		ir, ok, err := ReadInputRequired(res)
		if !ok {
			return rounds, nil
		}
		if err != nil {
			return rounds, err
		}
		r.Input = &ir
		if info, _ := s.Request(r.Call.Ref()).Info(); !InputRequiredAllowed(info.Method) {
			return rounds, fmt.Errorf("%s: %w", info.Method, ErrInputRequiredNotAllowed)
		}
		if r.N >= MaxRounds {
			return rounds, ErrTooManyRounds
		}
		var responses map[string]json.RawMessage
		if len(ir.Requests) > 0 {
			responses, r.Answers, err = c.AnswerInputs(ctx, s, r.Call.Ref(), r.N, ir)
			if err != nil {
				return rounds, err
			}
		}
		if ctx.Err() != nil {
			return rounds, ErrAbandoned
		}
		info, _ := s.Request(r.Call.Ref()).Info()
		// Keep only what the next round needs: the round answered no
		// longer needs its requestState (RetryRound lets go of it in its
		// result), nor does the round just sent in its params (RetryParams
		// replaces it).
		echo := r.Input.State
		r.Input.State = nil
		next, err := RetryRound(ctx, s, first.Ref(), r.N+1, info, responses, echo, opts)
		if err != nil {
			return rounds, fmt.Errorf("round %d: %w", r.N+1, err)
		}
		s.Shed(next.Ref(), ElideState)
		if sent != nil {
			sent(next)
		}
		rounds = append(rounds, Round{N: r.N + 1, Call: next})
	}
}
