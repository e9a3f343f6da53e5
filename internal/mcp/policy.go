package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Policy answers the server's questions with no one there: how a headless
// command answers sampling (--sample) and elicitation (--elicit). A nil
// part is a feature not declared.
type Policy struct {
	Sample *SamplePolicy
	Elicit *ElicitPolicy
}

// SamplePolicy answers sampling/createMessage: decline it, or reply Text.
type SamplePolicy struct {
	Decline bool
	Text    string
}

// ElicitPolicy answers elicitation/create with Action; an accept in form
// mode sends Content, or the schema's defaults when Defaults is set. An
// accept in url mode sends no content (the person's consent is the flag).
type ElicitPolicy struct {
	Action   string
	Defaults bool
	Content  json.RawMessage
}

// ParseSamplePolicy reads --sample: decline, or text:STRING.
func ParseSamplePolicy(s string) (*SamplePolicy, error) {
	switch {
	case s == "decline":
		return &SamplePolicy{Decline: true}, nil
	case strings.HasPrefix(s, "text:"):
		return &SamplePolicy{Text: strings.TrimPrefix(s, "text:")}, nil
	}
	return nil, fmt.Errorf("--sample %q: use decline or text:STRING", s)
}

// ParseElicitPolicy reads --elicit: decline, cancel, accept-defaults, or
// accept:JSON with the content as a JSON object.
func ParseElicitPolicy(s string) (*ElicitPolicy, error) {
	switch {
	case s == ElicitDecline, s == ElicitCancel:
		return &ElicitPolicy{Action: s}, nil
	case s == "accept-defaults":
		return &ElicitPolicy{Action: ElicitAccept, Defaults: true}, nil
	case strings.HasPrefix(s, "accept:"):
		content := json.RawMessage(strings.TrimPrefix(s, "accept:"))
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(content, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("--elicit accept:JSON: the content must be a JSON object, like accept:'{\"name\":\"Ada\"}'")
		}
		var b bytes.Buffer
		_ = json.Compact(&b, content)
		return &ElicitPolicy{Action: ElicitAccept, Content: b.Bytes()}, nil
	}
	return nil, fmt.Errorf("--elicit %q: use decline, cancel, accept-defaults or accept:JSON", s)
}

// Features are the client features the policy answers: sampling and
// elicitation (both modes) as given, and tasks with them, since a task is
// answered as the plain request would be.
func (p Policy) Features() ClientFeatures {
	f := ClientFeatures{Sampling: p.Sample != nil}
	if p.Elicit != nil {
		f.ElicitForm, f.ElicitURL = true, true
	}
	f.Tasks = f.Sampling || f.Elicitation()
	return f
}

// Describe says how the policy answers a question, for reports:
// "declined (--sample decline)".
func (p Policy) Describe(q *Question) string {
	if q.Sampling != nil && p.Sample != nil {
		if p.Sample.Decline {
			return "declined (--sample decline)"
		}
		return "replied with text (--sample text:…)"
	}
	if q.Elicit != nil && p.Elicit != nil {
		e := p.Elicit
		switch {
		case e.Action != ElicitAccept:
			return e.Action + " (--elicit " + e.Action + ")"
		case q.Elicit.Mode == ElicitModeURL:
			if err := URLOpenable(q.Elicit.URL); err != nil {
				return "accept, without opening the URL (--elicit); warning: " + err.Error()
			}
			return "accept, without opening the URL (--elicit)"
		case e.Defaults:
			return "accept with the schema's defaults (--elicit accept-defaults)" + schemaNote(q.Elicit, q.Elicit.Defaults())
		}
		return "accept with the given content (--elicit accept:JSON)" + schemaNote(q.Elicit, e.Content)
	}
	return "not answered"
}

// schemaNote says when content breaks the requested schema: it is sent
// all the same (a QA tool may send bad input on purpose), but said.
func schemaNote(r *ElicitRequest, content []byte) string {
	if err := r.CheckContent(content); err != nil {
		return ", which breaks the requested schema: " + err.Error()
	}
	return ""
}

// Ask answers q at once, as the policy says. It is an Asker.
func (p Policy) Ask(q *Question) { _ = p.Answer(q) }

// Answer answers q as the policy says, with Question.Answer's error: a
// *TooLateError when the server withdrew it first.
func (p Policy) Answer(q *Question) error {
	switch {
	case q.Sampling != nil && p.Sample != nil:
		if p.Sample.Decline {
			return q.Answer(nil, SamplingDeclined("declined by --sample decline"))
		}
		return q.Answer(SamplingText(p.Sample.Text, "mcpoke --sample"), nil)
	case q.Elicit != nil && p.Elicit != nil:
		e := p.Elicit
		switch {
		case e.Action != ElicitAccept:
			return q.Answer(ElicitResult(e.Action, nil), nil)
		case q.Elicit.Mode == ElicitModeURL:
			return q.Answer(ElicitResult(ElicitAccept, nil), nil)
		case e.Defaults:
			return q.Answer(ElicitResult(ElicitAccept, q.Elicit.Defaults()), nil)
		}
		return q.Answer(ElicitResult(ElicitAccept, e.Content), nil)
	}
	// Not declared, so not registered: never asked.
	return q.Answer(nil, invalidParams("%s: mcpoke has no answer for it", q.Method))
}
