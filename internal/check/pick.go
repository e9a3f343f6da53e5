package check

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// shortSeconds is what a duration argument is set to when the run picks
// the tool: long enough to be cancelled mid-work, short enough that the
// whole run stays within about 30 s.
const shortSeconds = 3

// maxProbed bounds how many tools the probe calls.
const maxProbed = 3

// durationNames are argument names taken for a duration in seconds.
var durationNames = []string{"seconds", "duration", "durationseconds", "duration_seconds", "delay", "delayseconds", "sleep", "wait"}

// slowWords in a tool's name or description suggest it takes a while;
// whole words only ("along" is not "long").
var slowWords = regexp.MustCompile(`(?i)\b(long|slow|sleeps?|wait|delay|progress)\b`)

// pick chooses the tool to cancel: --tool, or the best of a short probe
// of the tools that look slow. A --tool the server lacks, or arguments
// its schema refuses, are usage errors; no usable tool at all leaves
// r.noTool saying why.
func (r *runner) pick(ctx context.Context) error {
	peer := r.conn.Peer()
	if !declaresTools(peer) {
		r.noTool = "the server declares no tools capability, so there is no call to cancel"
		return nil
	}
	list, err := mcp.ListTools(ctx, r.s, mcp.ListOptions{})
	if err != nil {
		r.noTool = "tools/list failed: " + err.Error()
		return nil
	}
	if r.opts.Tool != "" {
		i := slices.IndexFunc(list.Tools, func(t mcp.Tool) bool { return t.Name == r.opts.Tool })
		if i < 0 {
			return fmt.Errorf("%w: the server has no tool %q; run mcpoke tools to list them", ErrUsage, r.opts.Tool)
		}
		t := list.Tools[i]
		args := r.opts.Args
		if args == nil {
			args = buildArgs(t, true)
		}
		if t.Schema != nil {
			if err := t.Schema.Validate(args); err != nil {
				return fmt.Errorf("%w: arguments for %q do not match its inputSchema: %v", ErrUsage, t.Name, err)
			}
		}
		got := r.probe(ctx, []candidate{{tool: t, args: args}})
		r.choose(got, "given with --tool")
		if r.tool == nil {
			r.noTool = fmt.Sprintf("the %s call %s in the probe, so it cannot be cancelled", r.opts.Tool, got[0].outcome())
		}
		return nil
	}
	cands := candidates(list.Tools)
	if len(cands) == 0 {
		r.noTool = "no tool could be called with arguments built from its inputSchema; give one with --tool NAME --args JSON"
		return nil
	}
	got := r.probe(ctx, cands)
	r.choose(got, "")
	if r.tool == nil {
		var outs []string
		for _, p := range got {
			outs = append(outs, p.tool.Name+" "+p.outcome())
		}
		r.noTool = "no probed tool was still working when cancelled (" + strings.Join(outs, "; ") +
			"); give one with --tool NAME --args JSON"
	}
	return nil
}

// candidate is a tool the probe may call, with its arguments.
type candidate struct {
	tool  mcp.Tool
	args  json.RawMessage
	score int
}

// candidates ranks the tools by how likely they are to be slow and
// keeps the first maxProbed that can be called without a task, are not
// marked destructive, and take the built arguments.
func candidates(tools []mcp.Tool) []candidate {
	var out []candidate
	for _, t := range tools {
		if t.Execution.TaskSupport == "required" || (t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint) {
			continue
		}
		args := buildArgs(t, true)
		if t.Schema != nil && t.Schema.Validate(args) != nil {
			continue
		}
		c := candidate{tool: t, args: args}
		if hasDuration(t) {
			c.score += 3
		}
		if slowWords.MatchString(strings.ReplaceAll(t.Name, "-", " ") + " " + t.Title + " " + t.Description) {
			c.score += 2
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b candidate) int { return b.score - a.score })
	if len(out) > 0 && out[0].score > 0 {
		out = slices.DeleteFunc(out, func(c candidate) bool { return c.score == 0 })
	}
	return out[:min(len(out), maxProbed)]
}

func isDuration(p mcp.Property) bool {
	return (p.IsType("number") || p.IsType("integer")) && slices.Contains(durationNames, strings.ToLower(p.Name))
}

func hasDuration(t mcp.Tool) bool { return slices.ContainsFunc(t.Input.Properties, isDuration) }

// durationOf is how long args ask the tool to run: its duration argument,
// given or by default, in seconds; zero when it has none.
func durationOf(t mcp.Tool, args json.RawMessage) time.Duration {
	var given map[string]json.RawMessage
	_ = json.Unmarshal(args, &given)
	for _, p := range t.Input.Properties {
		if !isDuration(p) {
			continue
		}
		v, ok := given[p.Name]
		if !ok {
			v = p.Default
		}
		var secs float64
		if json.Unmarshal(v, &secs) == nil && secs > 0 && secs < 24*3600 {
			return time.Duration(secs * float64(time.Second))
		}
	}
	return 0
}

// buildArgs makes arguments from the schema: a value for each required
// argument, and, when short, a duration argument of shortSeconds unless
// its default is already shorter.
func buildArgs(t mcp.Tool, short bool) json.RawMessage {
	args := map[string]any{}
	for _, p := range t.Input.Properties {
		switch {
		case short && isDuration(p):
			var def float64
			if p.Default == nil || json.Unmarshal(p.Default, &def) != nil || def > shortSeconds {
				args[p.Name] = shortSeconds
			}
		case !p.Required:
		case p.Default != nil:
			args[p.Name] = p.Default
		case len(p.Enum) > 0:
			args[p.Name] = p.Enum[0]
		case p.IsType("string"):
			args[p.Name] = "mcpoke check"
		case p.IsType("number") || p.IsType("integer"):
			args[p.Name] = 1
		case p.IsType("boolean"):
			args[p.Name] = false
		}
	}
	b, _ := json.Marshal(args)
	return b
}

// probed is what one probe call showed.
type probed struct {
	candidate
	// firstProgress is when its first progress came; zero when none did.
	firstProgress time.Duration
	// took is how long it ran when it ended within the window.
	took  time.Duration
	ended bool
	err   error
}

func (p probed) outcome() string {
	switch {
	case p.err != nil:
		return "failed (" + p.err.Error() + ")"
	case p.ended:
		return fmt.Sprintf("answered in %s", human(p.took))
	}
	return "was still working"
}

// probe calls every candidate at once with a progress token and watches
// them for ProbeWindow, or until the pick is decided (see decided); then
// it cancels those still running.
func (r *runner) probe(ctx context.Context, cands []candidate) []probed {
	out := make([]probed, len(cands))
	calls := make([]*session.Call, len(cands))
	begin := time.Now()
	for i, c := range cands {
		out[i].candidate = c
		params, err := mcp.CallToolParams(c.tool.Name, c.args)
		if err == nil {
			calls[i], err = r.s.Call(ctx, "tools/call", params, session.CallOptions{})
			if err == nil {
				if r.probeSeqs == nil {
					r.probeSeqs = map[uint64]bool{}
				}
				r.probeSeqs[calls[i].Seq()] = true
			}
		}
		out[i].err = err
	}
	deadline := begin.Add(r.opts.ProbeWindow)
	for time.Now().Before(deadline) && ctx.Err() == nil && !decided(out) {
		time.Sleep(pollEvery)
		running := 0
		for i, c := range calls {
			if c == nil {
				continue
			}
			info, _ := r.s.Request(c.Ref()).Info()
			if info.ProgressCount > 0 && out[i].firstProgress == 0 && len(info.ProgressHistory) > 0 {
				out[i].firstProgress = info.ProgressHistory[0].At.Sub(info.Started)
			}
			if info.State.Final() && !out[i].ended {
				out[i].ended, out[i].took = true, info.Ended.Sub(info.Started)
				out[i].err = callError(c)
			} else if !info.State.Final() {
				running++
			}
		}
		if running == 0 {
			break
		}
	}
	for _, c := range calls {
		if c != nil {
			_ = r.s.Request(c.Ref()).Cancel("mcpoke check: probe over")
		}
	}
	return out
}

// decided says whether the probe can stop: a tool is reporting progress
// while still working, and no tool ranked as high is still working
// without having reported any (it might be the better pick).
func decided(out []probed) bool {
	for i, p := range out {
		if p.firstProgress == 0 || p.ended || p.err != nil {
			continue
		}
		rival := false
		for j, q := range out {
			if j != i && q.err == nil && !q.ended && q.firstProgress == 0 && q.score >= p.score {
				rival = true
			}
		}
		if !rival {
			return true
		}
	}
	return false
}

// callError is a finished call's error: an error response, a failure, or
// a result that says isError.
func callError(c *session.Call) error {
	res, _, err := c.Result()
	if err != nil {
		return err
	}
	if cr, rerr := mcp.ReadCallResult(res); rerr == nil && cr.IsError {
		return fmt.Errorf("the tool returned isError")
	}
	return nil
}

// choose keeps the best probed tool: one that reports progress and was
// still working at the end of the probe (the highest ranked, then the
// first to report), else the one still working at the end of the window,
// else the slowest that answered without an error.
func (r *runner) choose(got []probed, why string) {
	best := -1
	for i, p := range got {
		if p.err != nil {
			continue
		}
		switch {
		case p.firstProgress > 0 && !p.ended:
			// A tool whose duration was set (score) lasts a known time;
			// among equals, the first to report progress.
			if best < 0 || got[best].firstProgress == 0 || got[best].ended || p.score > got[best].score ||
				(p.score == got[best].score && p.firstProgress < got[best].firstProgress) {
				best = i
			}
		case best >= 0 && got[best].firstProgress > 0 && !got[best].ended:
		case !p.ended:
			if best < 0 || got[best].ended {
				best = i
			}
		case best < 0 || (got[best].ended && p.took > got[best].took):
			best = i
		}
	}
	// A call that ends this quickly would end before the cancel.
	if best < 0 || (got[best].ended && got[best].took < cancelDelay*2) {
		return
	}
	p := got[best]
	params, _ := mcp.CallToolParams(p.tool.Name, p.args)
	r.params = params
	r.firstProgress = p.firstProgress
	if p.ended {
		r.duration = p.took
	} else {
		// Still working after the probe: as long as its duration argument
		// says, if it has one (a server that ignores the cancel answers
		// about then).
		r.duration = durationOf(p.tool, p.args)
	}
	if why == "" {
		names := make([]string, len(got))
		for i, g := range got {
			names[i] = g.tool.Name
		}
		why = "picked from a probe of " + strings.Join(names, ", ")
	}
	switch {
	case p.firstProgress > 0:
		why += fmt.Sprintf("; it reports progress (first after %s)", human(p.firstProgress))
	case !p.ended:
		why += fmt.Sprintf("; no progress, still working after %s", r.opts.ProbeWindow)
	default:
		why += fmt.Sprintf("; no progress, answers in %s", human(p.took))
	}
	r.tool = &Tool{Name: p.tool.Name, Args: p.args, Progress: p.firstProgress > 0, Why: why}
}
