package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpoke/mcpoke/session"
)

// InputAnswer is what became of one of a round's inputRequests.
type InputAnswer struct {
	Key    string
	Method string
	// Question is the question asked (sampling, elicitation); nil for
	// roots/list, answered from the list, and for a request not answered.
	Question *Question
	// Result is the inputResponse sent; nil when none is (declined, or
	// a request mcpoke did not declare or know).
	Result json.RawMessage
	// Refused says why there is no Result.
	Refused string
}

// AnswerInputs answers a round's inputRequests, of the request ref (the
// round's own, which answered input_required), with
// the same answerers as 2025's server requests: roots from the root list,
// sampling and elicitation as Questions to the Asker (a person in the
// TUI, a policy headless). It waits for every answer; when ctx ends first
// the questions are withdrawn and it returns ErrAbandoned. responses are
// the inputResponses to send: a declined question, or a request of a
// feature mcpoke did not declare, has none (the server may ask again).
func (c *ClientSide) AnswerInputs(ctx context.Context, s *session.Session, ref session.Ref, round int, ir InputRequired) (map[string]json.RawMessage, []InputAnswer, error) {
	answers := make([]InputAnswer, len(ir.Requests))
	var asked []int
	// One context for the round's questions: abandoning, or the session
	// ending, withdraws them all.
	qctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go func() {
		select {
		case <-s.Done():
			stop(errSessionEnded)
		case <-qctx.Done():
		}
	}()
	for i, r := range ir.Requests {
		a := &answers[i]
		a.Key, a.Method = r.Key, r.Method
		q, res, refused := c.inputQuestion(r)
		switch {
		case refused != "":
			a.Refused = refused
		case q == nil:
			a.Result = res
		default:
			q.Ref, q.Method, q.Asked = ref, r.Method, c.clock.Now()
			q.InputKey, q.Round = r.Key, round
			q.ctx, q.reply = qctx, make(chan answer, 1)
			q.why = func() string {
				if errors.Is(context.Cause(qctx), errSessionEnded) {
					return errSessionEnded.Error()
				}
				return "the request was abandoned between rounds"
			}
			a.Question = q
			asked = append(asked, i)
		}
	}
	for _, i := range asked {
		c.ask(answers[i].Question)
	}
	var wg sync.WaitGroup
	for _, i := range asked {
		wg.Add(1)
		go func(a *InputAnswer) {
			defer wg.Done()
			res, err := a.Question.wait()
			if err != nil {
				a.Refused = err.Error()
				return
			}
			a.Result = res
		}(&answers[i])
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, answers, ErrAbandoned
	}
	if qctx.Err() != nil {
		return nil, answers, context.Cause(qctx)
	}
	responses := map[string]json.RawMessage{}
	for _, a := range answers {
		if a.Result != nil {
			responses[a.Key] = a.Result
		}
	}
	return responses, answers, nil
}

// inputQuestion reads one inputRequest: the question to ask, or the
// answer at once (roots/list), or why it is not answered.
func (c *ClientSide) inputQuestion(r InputRequest) (q *Question, result json.RawMessage, refused string) {
	f := c.features
	switch r.Method {
	case "roots/list":
		if !f.Roots {
			return nil, nil, "mcpoke did not declare roots to this server"
		}
		res, _ := json.Marshal(struct {
			Roots []Root `json:"roots"`
		}{c.roots.Roots()})
		return nil, res, ""
	case "sampling/createMessage":
		if !f.Sampling {
			return nil, nil, "mcpoke did not declare sampling to this server"
		}
		req, err := ParseSamplingRequest(r.Params)
		if err != nil {
			return nil, nil, err.Error()
		}
		return &Question{Sampling: &req}, nil, ""
	case "elicitation/create":
		if !f.Elicitation() {
			return nil, nil, "mcpoke did not declare elicitation to this server"
		}
		req, err := parseElicit(r.Params, f, false) // no elicitationId in 2026-07-28
		if err != nil {
			return nil, nil, err.Error()
		}
		return &Question{Elicit: &req}, nil, ""
	}
	return nil, nil, fmt.Sprintf("%q is not a request a server may put in inputRequests", r.Method)
}
