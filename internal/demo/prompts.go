package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// demoPrompts are the entries of prompts/list: one with arguments (one of
// which completes), one slow enough to cancel.
func demoPrompts() []mcp.Prompt {
	return []mcp.Prompt{
		{Name: "review", Title: "Review some code",
			Description: "Asks for a code review; language completes.",
			Arguments: []mcp.PromptArgument{
				{Name: "code", Description: "The code to review", Required: true},
				{Name: "language", Description: "Its programming language (completes)"},
				{Name: "focus", Description: "What to look at most: bugs, style, speed"},
			}},
		{Name: "slow", Title: "Slow to get",
			Description: "Takes seconds (default 5) to build; honours cancellation.",
			Arguments: []mcp.PromptArgument{
				{Name: "seconds", Description: "How long it takes, in seconds"},
			}},
	}
}

// languages are what the review prompt's language argument completes to.
var languages = []string{"c", "c++", "elixir", "erlang", "go", "haskell", "java", "javascript", "kotlin",
	"python", "ruby", "rust", "scala", "swift", "typescript", "zig"}

// listPrompts answers prompts/list.
func (srv *server) listPrompts(context.Context, *session.Incoming) (any, error) {
	return map[string]any{"prompts": srv.prompts()}, nil
}

// promptMessage is a PromptMessage with text content.
type promptMessage struct {
	Role    string      `json:"role"`
	Content textContent `json:"content"`
}

// getPrompt answers prompts/get: an unknown prompt or a missing required
// argument is -32602, as the prompts spec asks.
func (srv *server) getPrompt(ctx context.Context, in *session.Incoming) (any, error) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := json.Unmarshal(in.Params, &p); err != nil {
		return nil, invalidParams("prompts/get: params must be an object with a name and string arguments: %v", err)
	}
	var prompt *mcp.Prompt
	for _, pr := range srv.prompts() {
		if pr.Name == p.Name {
			prompt = &pr
		}
	}
	if prompt == nil {
		return nil, invalidParams("unknown prompt %q; this server has: %s", p.Name, promptNames(srv.prompts()))
	}
	for _, a := range prompt.Arguments {
		if a.Required && p.Arguments[a.Name] == "" {
			return nil, invalidParams("prompt %s: missing required argument %q", p.Name, a.Name)
		}
	}
	srv.logFor(in, "info", "prompts", "get "+p.Name)
	switch p.Name {
	case "review":
		return reviewPrompt(p.Arguments), nil
	case "slow":
	case mrtrPromptName:
		return mrtrPrompt().serve(in)
	default:
		return fixturePrompt(p.Name, p.Arguments), nil
	}
	return srv.slowPrompt(ctx, in, p.Arguments["seconds"])
}

func reviewPrompt(args map[string]string) any {
	lang := args["language"]
	what := "this code"
	if lang != "" {
		what = "this " + lang + " code"
	}
	ask := "Please review " + what + ":\n\n" + args["code"]
	if f := strings.TrimSpace(args["focus"]); f != "" {
		ask += "\n\nLook at " + f + " most."
	}
	return map[string]any{
		"description": "A code review request",
		"messages": []promptMessage{
			{"user", textContent{"text", ask}},
			{"assistant", textContent{"text", "Here is what I see, point by point:"}},
		},
	}
}

// slowPrompt takes the seconds asked for, reporting progress each second
// when asked to, and stops when cancelled.
func (srv *server) slowPrompt(ctx context.Context, in *session.Incoming, secs string) (any, error) {
	n := 5.0
	if secs != "" {
		v, err := strconv.ParseFloat(secs, 64)
		if err != nil || v < 0 || v > 3600 {
			return nil, invalidParams("prompt slow: seconds %q is not a number from 0 to 3600", secs)
		}
		n = v
	}
	deadline := time.NewTimer(seconds(n))
	defer deadline.Stop()
	tick := time.NewTicker(srv.slowStep)
	defer tick.Stop()
	for done := 1; ; done++ {
		select {
		case <-ctx.Done():
			srv.log.Info("slow prompt stopped", "id", in.ID.String())
			return nil, ctx.Err()
		case <-deadline.C:
			return map[string]any{"messages": []promptMessage{
				{"user", textContent{"text", fmt.Sprintf("This prompt took %gs to build.", n)}}}}, nil
		case <-tick.C:
			if err := in.NotifyProgress(float64(done), n, ""); err != nil {
				return nil, err
			}
		}
	}
}
