package demo

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/mcpoke/mcpoke/session"
)

// names are what the greeting template's name variable completes to.
var names = []string{"Ada", "Alan", "Barbara", "Dennis", "Edsger", "Grace", "Ken", "Linus", "Margaret", "Rob"}

// complete answers completion/complete for the review prompt's language
// and the greeting template's lang and name: the values that start with
// what was typed, case aside. Anything else completes to nothing.
func (srv *server) complete(_ context.Context, in *session.Incoming) (any, error) {
	var p struct {
		Ref struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
	}
	if err := json.Unmarshal(in.Params, &p); err != nil {
		return nil, invalidParams("completion/complete: params must be an object with ref and argument: %v", err)
	}
	var pool []string
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == "review" && p.Argument.Name == "language":
		pool = languages
	case p.Ref.Type == "ref/resource" && p.Ref.URI == greetingTemplate.URITemplate && p.Argument.Name == "lang":
		pool = slices.Sorted(maps.Keys(greetings))
	case p.Ref.Type == "ref/resource" && p.Ref.URI == greetingTemplate.URITemplate && p.Argument.Name == "name":
		pool = names
	case p.Ref.Type != "ref/prompt" && p.Ref.Type != "ref/resource":
		return nil, invalidParams("completion/complete: ref.type %q is neither ref/prompt nor ref/resource", p.Ref.Type)
	}
	values := []string{}
	prefix := strings.ToLower(p.Argument.Value)
	for _, v := range pool {
		if strings.HasPrefix(strings.ToLower(v), prefix) {
			values = append(values, v)
		}
	}
	srv.logFor(in, "debug", "completion", p.Argument.Name+" "+p.Argument.Value+"…")
	return map[string]any{"completion": map[string]any{"values": values, "total": len(values), "hasMore": false}}, nil
}
