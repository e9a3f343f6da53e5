package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// Describe says how each policy answers each kind of question, and "not
// answered" for a question the policy has no answer for.
func TestPolicyDescribeEachAnswer(t *testing.T) {
	sample := &Question{Sampling: &SamplingRequest{}}
	form, err := ParseElicitRequest(json.RawMessage(`{"message":"m","requestedSchema":{"type":"object",
		"properties":{"name":{"type":"string","default":"Ada"}},"required":["name"]}}`), ClientFeatures{ElicitForm: true})
	if err != nil {
		t.Fatal(err)
	}
	elicit := &Question{Elicit: &form}
	policy := func(sample, elicit string) Policy {
		var p Policy
		if sample != "" {
			s, err := ParseSamplePolicy(sample)
			if err != nil {
				t.Fatal(err)
			}
			p.Sample = s
		}
		if elicit != "" {
			e, err := ParseElicitPolicy(elicit)
			if err != nil {
				t.Fatal(err)
			}
			p.Elicit = e
		}
		return p
	}
	for _, tc := range []struct {
		p    Policy
		q    *Question
		want string
	}{
		{policy("decline", ""), sample, "declined (--sample decline)"},
		{policy("text:hi", ""), sample, "replied with text (--sample text:…)"},
		{policy("", "decline"), sample, "not answered"},
		{policy("decline", ""), elicit, "not answered"},
		{policy("", "cancel"), elicit, "cancel (--elicit cancel)"},
		{policy("", "accept-defaults"), elicit, "accept with the schema's defaults (--elicit accept-defaults)"},
		{policy("", `accept:{"name":"Bo"}`), elicit, "accept with the given content (--elicit accept:JSON)"},
		{policy("", `accept:{"name":3}`), elicit, "accept with the given content (--elicit accept:JSON), which breaks the requested schema: "},
	} {
		// A want ending in ": " is followed by the schema's complaint.
		got := tc.p.Describe(tc.q)
		if got != tc.want && !(strings.HasSuffix(tc.want, ": ") && strings.HasPrefix(got, tc.want) && len(got) > len(tc.want)) {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}
