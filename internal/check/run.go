package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// Options tune a run. The zero value uses the defaults.
type Options struct {
	// Tool is the tool to cancel; "" lets the run pick one (see pick).
	Tool string
	// Args are its arguments; nil builds them from its inputSchema.
	Args json.RawMessage
	// Only runs just these checks; Skip leaves these out.
	Only, Skip []int
	// Listen is how long after a cancel the server is watched for a
	// response and progress. Default DefaultListen.
	Listen time.Duration
	// Load is how many calls check 6 makes. Default DefaultLoad.
	Load int
	// Seed makes check 6's cancel moments repeatable.
	Seed int64
	// CallTimeout bounds the wait for a call that must complete. Default
	// DefaultCallTimeout.
	CallTimeout time.Duration
	// ProbeWindow bounds the probe that picks the tool. Default
	// DefaultProbeWindow.
	ProbeWindow time.Duration
	// Grace is how long after the cancel a frame is still taken for
	// traffic that crossed it; zero derives it from the round trip the run
	// measures (see runner.grace).
	Grace time.Duration
	// PingTimeout bounds each liveness ping; zero derives it from the
	// round trip the run measures (see runner.pingTimeout).
	PingTimeout time.Duration
	// pingFloor replaces pingFloor, for tests.
	pingFloor time.Duration
	// Answerer answers the server's own requests (check 9); nil, and
	// check 9 is skipped. Prepare the connection with it.
	Answerer *Answerer
	// Spans, when set (check --otlp-receive), are the server's spans:
	// check 10 takes the span of the cancelled call as its evidence where
	// the server's CPU cannot be read, and cites it beside the CPU where
	// it can. The session must put a traceparent in its requests.
	Spans SpanSource
}

// Defaults of Options.
const (
	DefaultListen      = 2 * time.Second
	DefaultLoad        = 200
	DefaultCallTimeout = 15 * time.Second
	DefaultProbeWindow = 2500 * time.Millisecond
)

func (o *Options) defaults() {
	if o.Listen <= 0 {
		o.Listen = DefaultListen
	}
	if o.Load <= 0 {
		o.Load = DefaultLoad
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.ProbeWindow <= 0 {
		o.ProbeWindow = DefaultProbeWindow
	}
}

// ErrUsage wraps the errors that are the user's to fix: an unknown
// check, an unknown tool, arguments its schema refuses.
var ErrUsage = errors.New("usage")

// runner is one run: the connection and what the checks learn on the
// way.
type runner struct {
	conn  *connect.Conn
	s     *session.Session
	opts  Options
	watch *watcher

	tool   *Tool
	params json.RawMessage
	// noTool says why there is no tool to cancel; the checks that need
	// one skip with it.
	noTool string
	// firstProgress is how long after the call the tool's first progress
	// came in the probe; zero when it sent none.
	firstProgress time.Duration
	// duration is how long a whole call of the tool took, once known.
	duration time.Duration
	// cancelObs is the cancelled call checks 1 and 2 share.
	cancelObs *cancelObservation
	// wire records the HTTP transport's facts while a check asks.
	wire wireFacts
	// deathTold: a check has said why the connection ended.
	deathTold bool
	// probeSeqs are the probe's calls, to name its cancel as a cause.
	probeSeqs map[uint64]bool
	// crossing is check 9's answer sent after the call's cancel, to name
	// it as a cause.
	crossing *crossingAnswer
	// rawCancel is the last cancel a check wrote itself, to name it as a
	// cause.
	rawCancel *sentCancel
	// rtt is the slowest ping round trip measured so far, rtts the first
	// maxRoundTrips of them; check 6 also pings while its load runs.
	rttMu sync.Mutex
	rtt   time.Duration
	rtts  []time.Duration
}

// Run grades conn's server, which must be initialized. It fails only on
// usage errors (wrapping ErrUsage) or when ctx ends before the checks.
func Run(ctx context.Context, conn *connect.Conn, opts Options) (*Report, error) {
	opts.defaults()
	if err := validIDs(opts.Only, opts.Skip); err != nil {
		return nil, err
	}
	start := time.Now()
	r := &runner{conn: conn, s: conn.Session, opts: opts, watch: newWatcher(conn.Session)}
	defer r.watch.close()
	conn.Observe(r.wire.observe)
	peer := conn.Peer()
	rep := &Report{Server: Server{peer.ServerInfo.Name, peer.ServerInfo.Version}, Protocol: peer.ProtocolVersion,
		Transport: conn.Transport()}
	r.measure(ctx)
	if r.needsTool() {
		if err := r.pick(ctx); err != nil {
			return nil, err
		}
		rep.Tool = r.tool
	}
	for _, d := range catalogue {
		res := d.result()
		begin := time.Now()
		switch {
		case !r.selected(d.id):
			continue
		case ctx.Err() != nil:
			res.Status, res.Reason = Skip, "mcpoke was interrupted"
		default:
			r.runCheck(ctx, d.id, &res)
		}
		res.Ms = ms(time.Since(begin))
		rep.Checks = append(rep.Checks, res)
	}
	rep.summarize()
	rep.Ms = ms(time.Since(start))
	return rep, nil
}

func (r *runner) runCheck(ctx context.Context, id int, res *Result) {
	needTool := map[int]bool{1: true, 2: true, 5: true, 6: true, 10: true}
	// Checks 1 and 2 cite the sentence of the run's era and transport.
	switch id {
	case 1:
		res.Rule = r.afterCancelRule(ruleNoResponse)
	case 2:
		res.Rule = r.afterCancelRule(ruleStopWork)
	case 10:
		res.Rule = r.stopWorkRule()
	}
	if id == 10 && r.opts.Spans == nil {
		// Without the server's spans, nothing else can show its work.
		if skip, na := r.noMeter(); skip != "" {
			res.Status, res.Reason, res.NotApplicable = Skip, skip, na
			return
		}
	}
	if id != 3 && r.closed() {
		// Check 3 grades the death; the others cannot run, and say why.
		res.Status, res.Reason = Skip, "nothing could be tested: "+r.dead()
		if r.deathTold {
			res.Reason = "nothing could be tested: the connection had ended (said above)"
		}
		r.deathTold = true
		return
	}
	if needTool[id] && r.tool == nil {
		res.Status, res.Reason = Skip, r.noTool
		return
	}
	switch id {
	case 1, 2:
		r.cancelledCall(ctx, id, res)
	case 3:
		r.healthy(ctx, res)
	case 4:
		r.invalidCancels(ctx, res)
	case 5:
		r.wrongIDType(ctx, res)
	case 6:
		r.underLoad(ctx, res)
	case 7:
		r.tasks(ctx, res)
	case 8:
		r.httpCancellation(ctx, res)
	case 9:
		r.ownRequests(ctx, res)
	case 10:
		r.stopsWork(ctx, res)
	}
}

// selected says whether --only and --skip let check id run.
func (r *runner) selected(id int) bool {
	if len(r.opts.Only) > 0 && !slices.Contains(r.opts.Only, id) {
		return false
	}
	return !slices.Contains(r.opts.Skip, id)
}

// needsTool says whether a selected check cancels a tool call (check 3
// looks at the server after one; check 8 needs one over HTTP).
func (r *runner) needsTool() bool {
	ids := []int{1, 2, 3, 5, 6, 10}
	if r.conn.Transport() == "http" {
		ids = append(ids, 8)
	}
	for _, id := range ids {
		if r.selected(id) {
			return true
		}
	}
	return false
}

func validIDs(lists ...[]int) error {
	for _, l := range lists {
		for _, id := range l {
			if !slices.Contains(IDs(), id) {
				return fmt.Errorf("%w: there is no check %d; the checks are 1 to %d", ErrUsage, id, len(catalogue))
			}
		}
	}
	return nil
}

// declaresTools says whether the server declared the tools capability.
func declaresTools(peer session.PeerInfo) bool {
	return mcp.CheckDeclared(peer, "tools/call") == nil
}
