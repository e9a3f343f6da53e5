package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

type benchFlags struct {
	tool         string
	args         string
	argsGiven    bool
	n            int
	concurrency  int
	cancelProbes int
	watch        time.Duration
	json         bool
	transcript   string
	protocol     string
	floor        bool
	cpus         int
	// The cancel storm (bench_storm*.go): on when --cancel-rate is given.
	storm       bool
	cancelRate  float64
	cancelAt    cancelPoint
	forD        time.Duration
	callTimeout time.Duration
	timeoutFlags
}

func newBenchCommand(g *globalFlags) *cobra.Command {
	f := &benchFlags{}
	cmd := &cobra.Command{
		Use:   "bench [--tool echo] [--args JSON] [-n 2000] [--concurrency 1] [--json] [-- CMD ARGS...]",
		Short: "Measure a server's tool-call round trip, throughput and cancel path",
		Long: `Call one tool many times and report round-trip latency (p50, p90, p99, max) and
throughput. Then probe the cancel path: start a call, cancel it at once, and measure
the time from Cancel to the notifications/cancelled frame being handed to the
transport, and count what the server sent after it (late responses, errors, progress)
within --watch.

Without --args, each required string argument of the tool gets "hello".

The cancel storm (--cancel-rate P): bench first makes the calls without cancels,
then the same calls (-n/--calls, or for --for D) cancelling a share P of them, at a
moment drawn from --cancel-after D1..D2 or at a named point (before-first-progress,
mid-progress), by the era's form: notifications/cancelled, or closing the request's
stream in 2026-07-28 over Streamable HTTP. Each cancelled call is watched for
--watch. It reports each class with its percentiles: completed, cancelled cleanly,
answered anyway (a late answer; it says how many may have crossed the cancel on the
wire: within the round trip of the pings it sends during the storm, and no sooner
than the fastest uncancelled call), progress after the
cancel, errors by code, timed out (--timeout); the completed calls beside the
uncancelled run; cancel-to-quiet (the cancel to the last frame for its request)
with a histogram; for a stdio server it started, the CPU its process family burnt
during the storm and in the --watch after it (work it kept doing after cancels);
and the server's health after: a ping and a call. It ends with a verdict line.
Over 2026-07-28 Streamable HTTP nothing can arrive after a cancel, and the report
says so rather than call the cancels clean. The storm takes the place of the probes.
Its times go into sketches of fixed size (percentiles within 0.4%), so that its
memory stays flat however many calls it makes (--for 1h included).

Interrupted (Ctrl-C), bench sends no more calls, stops watching, and reports what it
measured so far; like every command it then exits with 128 + the signal (130).`,
		Example: `  # The demo server's echo
  mcpoke bench

  # A cancel storm: 30% of 10,000 calls of sleep cancelled 50 to 500 ms in
  mcpoke bench --tool sleep --args '{"seconds":1,"steps":10}' --concurrency 64 \
    --calls 10000 --cancel-rate 30% --cancel-after 50ms..500ms

  # The same for 30 seconds, each cancelled once the server is halfway
  mcpoke bench --tool sleep --concurrency 64 --for 30s --cancel-rate 0.3 --cancel-after mid-progress

  # The reference server's echo, 4 calls at a time, as JSON
  mcpoke bench --args '{"message":"hi"}' --concurrency 4 --json -- npx -y @modelcontextprotocol/server-everything`,
		Args: func(cmd *cobra.Command, args []string) error {
			if n := toolArgCount(cmd, args); n > 0 {
				return usageError("unexpected argument %s: name the tool with --tool, and put the server command after --", quote(args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.n < 1 || f.concurrency < 1 || f.cancelProbes < 0 || f.watch < 0 || f.cpus < 0 {
				return usageError("-n and --concurrency must be at least 1; --cancel-probes, --watch and --cpus not negative")
			}
			if err := f.checkTimeouts(); err != nil {
				return err
			}
			f.argsGiven = cmd.Flags().Changed("args")
			if err := f.readStormFlags(cmd.Flags()); err != nil {
				return err
			}
			spec, err := resolveSpec(g, dashArgs(cmd, args))
			if err != nil {
				return err
			}
			return runBench(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), g, spec, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.tool, "tool", "echo", "the tool to call")
	fl.StringVar(&f.args, "args", "", "tool arguments as a JSON OBJECT")
	fl.IntVarP(&f.n, "n", "n", 2000, "how many calls to measure")
	fl.IntVar(&f.concurrency, "concurrency", 1, "calls in flight at once")
	fl.IntVar(&f.cancelProbes, "cancel-probes", 20, "calls to cancel at once, to measure the cancel path (0: none)")
	fl.DurationVar(&f.watch, "watch", time.Second, "how long to watch for late traffic after the cancel probes, or after each cancel of the storm")
	fl.BoolVar(&f.json, "json", false, "print the figures as one JSON object")
	fl.StringVar(&f.transcript, "transcript", "", "write an NDJSON transcript of the wire to FILE (it slows the calls a little)")
	fl.IntVar(&f.cpus, "cpus", 0, "CPUs bench's own client may use (0: one per call in flight, at most the machine's; GOMAXPROCS in the environment is kept); the server is not limited")
	fl.BoolVar(&f.floor, "floor", false, "also measure this machine's floor, a raw pipe ping-pong between two processes with the same message sizes, and give the figures as ratios to it")
	protocolFlag(fl, &f.protocol)
	stormFlags(fl)
	addTimeoutFlags(fl, &f.timeoutFlags, "the tool list (each page) and each call", "the tool list and each call")
	return cmd
}

// benchReport is what `bench --json` prints; times in milliseconds.
type benchReport struct {
	Server reportServer `json:"server"`
	// Transport is "stdio", "http" (Streamable HTTP) or "sse" (legacy
	// HTTP+SSE): figures over HTTP are not comparable with stdio's.
	Transport   string `json:"transport"`
	Tool        string `json:"tool"`
	Calls       int    `json:"calls"` // measured: -n, or fewer when interrupted
	Interrupted bool   `json:"interrupted,omitempty"`
	Concurrency int    `json:"concurrency"`
	ClientCPUs  int    `json:"clientCPUs"` // the GOMAXPROCS bench's client ran on (--cpus)
	Errors      int    `json:"errors"`
	latencyStats
	// Histogram counts the round trips in log-scale buckets.
	Histogram   []histogramBucket `json:"histogram"`
	CallsPerSec float64           `json:"callsPerSec"`
	Cancel      *cancelStats      `json:"cancel,omitempty"`
	// Storm is the cancel storm (--cancel-rate); the figures above are
	// then those of the same run without cancels, made first.
	Storm *stormReport `json:"storm,omitempty"`
	// Floor is the raw pipe ping-pong measured in the same run (--floor);
	// P50VsFloor is the median, over slices of 20 calls, of their p50 over
	// the p50 of the floor's round trips taken right after them.
	Floor      *floorStats `json:"floor,omitempty"`
	P50VsFloor float64     `json:"p50VsFloor,omitempty"`
}

func runBench(ctx context.Context, stdout, stderr io.Writer, g *globalFlags, spec connect.Spec, f *benchFlags) error {
	var args json.RawMessage
	var err error
	if f.argsGiven {
		if args, err = parseArgs(f.args); err != nil {
			return err
		}
	}
	cpus := benchCPUs(f.cpus, f.concurrency)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cpus))
	// Cancelled probes end at once; late traffic is counted by kind.
	opts := serverOptions{protocol: f.protocol, transcript: f.transcript, session: session.Config{SettleWindow: -1}}
	srv, err := openServer(ctx, g, spec, opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	// Without --args, args stays nil and the tool's defaultArgs are used.
	t, params, err := prepareTool(ctx, srv, f.tool, args, stderr, g.force, f.timeoutFlags)
	if err != nil {
		return err
	}

	req := benchRequest{params: params, timeout: f.timeout, maxTimeout: f.maxTimeout}
	if srv.Session.Era2026() {
		// x-mcp-header parameters travel in headers too (2026-07-28).
		if req.headers, err = mcp.CallParamHeaders(t, params); err != nil {
			return usageError("%v", err)
		}
	}
	// One call first: a tool that fails would make every figure
	// meaningless. With --floor it also gives the floor its line sizes.
	var sizes *frameSizes
	if f.floor {
		sizes = watchFrameSizes(srv)
	}
	if err := benchCall(ctx, srv.Session, req); err != nil {
		return fmt.Errorf("the first call to %s failed, so there is nothing to measure: %w", quote(t.Name), err)
	}
	warmup := min(50, f.n/10)
	var fl *floorRun
	if f.floor {
		reqSize, replySize := sizes.sizes()
		if fl, err = startFloor(ctx, reqSize, replySize, warmup); err != nil {
			return err
		}
		defer fl.close()
	}
	runCalls(ctx, srv.Session, req, warmup, f.concurrency)
	rep := benchReport{
		Server:      serverOf(srv.Peer()),
		Transport:   srv.Transport(),
		Tool:        t.Name,
		Concurrency: f.concurrency,
		ClientCPUs:  cpus,
	}
	var wall time.Duration
	if f.storm {
		// A storm may make millions of calls: its twin's round trips go
		// into a sketch of fixed size (within 0.4%).
		var rounds *latencySketch
		rounds, rep.Errors, wall = runUncancelled(ctx, srv.Session, req, f)
		rep.Calls, rep.latencyStats, rep.Histogram = rounds.len(), rounds.stats(), sketchHistogram(rounds)
	} else {
		var rounds []time.Duration
		rounds, rep.Errors, wall = measureCalls(ctx, srv.Session, req, f, fl)
		rep.Calls, rep.latencyStats, rep.Histogram = len(rounds), summarize(rounds), histogram(rounds)
	}
	if wall > 0 {
		rep.CallsPerSec = float64(rep.Calls) / wall.Seconds()
	}
	if fl != nil && fl.err != nil {
		return fmt.Errorf("the pipe floor: %w", fl.err)
	}
	if fl != nil {
		rep.Floor = fl.stats()
		rep.P50VsFloor = fl.p50Ratio()
	}
	if f.storm && ctx.Err() == nil {
		st := runStormReport(ctx, srv, req, f.stormPlan(), &rep)
		rep.Storm = &st
	}
	if f.cancelProbes > 0 && !f.storm && ctx.Err() == nil {
		cs := probeCancel(ctx, srv, req, f.cancelProbes, f.watch)
		rep.Cancel = &cs
	}
	// Interrupted: report what was measured; main exits with the
	// signal's status.
	rep.Interrupted = ctx.Err() != nil
	if f.json {
		return writeJSON(stdout, rep, append(rep.Server.textWarnings(), flagInvalidText(nil, "/tool", rep.Tool)...))
	}
	printBench(stdout, &rep, f)
	return nil
}

// benchRequest is the call bench repeats: its params, the Mcp-Param
// headers they carry in 2026-07-28, and the timeouts that bound each
// call (--timeout, --max-timeout), so that a server that stops answering
// ends the run with errors instead of hanging it.
type benchRequest struct {
	params              json.RawMessage
	headers             map[string]string
	timeout, maxTimeout time.Duration
}

// options are the call options of one call.
func (r benchRequest) options() session.CallOptions {
	o := session.CallOptions{Timeout: r.timeout, MaxTimeout: r.maxTimeout, ParamHeaders: r.headers}
	if r.maxTimeout == 0 {
		o.MaxTimeout = -1
	}
	return o
}

// benchCall makes one call; a JSON-RPC error or an isError result is an
// error.
func benchCall(ctx context.Context, s *session.Session, req benchRequest) error {
	res, err := s.Do(ctx, "tools/call", req.params, req.options())
	return resultError(res, err)
}

// errIsError is a call answered with a result whose isError is true.
var errIsError = errors.New("the tool returned an error result (isError)")

// resultError is benchCall's verdict on a call's outcome; bench reads it
// after the clock stopped, so that decoding the result is not timed.
func resultError(res json.RawMessage, err error) error {
	if err != nil {
		return err
	}
	// Most results have no isError at all: reading each whole took an
	// eighth of the client's CPU at concurrency 64.
	if !mayHaveIsError(res) {
		return nil
	}
	if r, err := mcp.ReadCallResult(res); err == nil && r.IsError {
		return errIsError
	}
	return nil
}

// runCalls makes n calls, concurrency at a time, and returns each round
// trip, the number that failed, and the wall time of the whole run. Once
// ctx ends (mcpoke is interrupted) it starts no more calls, and calls it
// cut short are not counted: it returns what was measured until then.
func runCalls(ctx context.Context, s *session.Session, req benchRequest, n, concurrency int) ([]time.Duration, int, time.Duration) {
	var mu sync.Mutex
	var rounds []time.Duration
	errs := 0
	var started atomic.Int64
	start := time.Now()
	end := start // when the last measured call ended
	var wg sync.WaitGroup
	for range min(concurrency, n) {
		wg.Go(func() {
			for ctx.Err() == nil && started.Add(1) <= int64(n) {
				t0 := time.Now()
				res, err := s.Do(ctx, "tools/call", req.params, req.options())
				d := time.Since(t0)
				err = resultError(res, err)
				if err != nil && ctx.Err() != nil {
					return // cut short by the interrupt: not measured
				}
				mu.Lock()
				rounds = append(rounds, d)
				if err != nil {
					errs++
				}
				if e := t0.Add(d); e.After(end) {
					end = e
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return rounds, errs, end.Sub(start)
}

func printBench(w io.Writer, r *benchReport, f *benchFlags) {
	fmt.Fprintf(w, "bench %s on %s %s (protocol %s%s): %d calls, concurrency %d, client on %s\n", termtext.Line(r.Tool),
		termtext.Line(r.Server.Name), termtext.Line(r.Server.Version), termtext.Line(r.Server.ProtocolVersion),
		overTransport(r.Transport), r.Calls, r.Concurrency, english.Plural(r.ClientCPUs, "CPU"))
	if r.Storm != nil {
		fmt.Fprintln(w, "uncancelled run (the same calls, none cancelled), made first:")
	}
	switch {
	case !r.Interrupted || r.Storm != nil: // the storm says it was
	case r.Calls < f.n && f.forD == 0:
		fmt.Fprintf(w, "interrupted after %d of %d calls; the figures are for those\n", r.Calls, f.n)
	case r.Cancel != nil:
		fmt.Fprintln(w, "interrupted during the cancel probes")
	default:
		fmt.Fprintln(w, "interrupted")
	}
	fmt.Fprintf(w, "round trip  p50 %s  p90 %s  p99 %s  max %s  (min %s, mean %s)\n",
		human(r.P50Ms), human(r.P90Ms), human(r.P99Ms), human(r.MaxMs), human(r.MinMs), human(r.MeanMs))
	printHistogram(w, r.Histogram)
	fmt.Fprintf(w, "throughput  %.0f calls/s, %d errors\n", r.CallsPerSec, r.Errors)
	printFloor(w, r)
	if r.Storm != nil {
		printStorm(w, r.Storm)
	}
	if c := r.Cancel; c != nil {
		probes := english.Plural(c.Probes, "probe")
		if c.Probes < f.cancelProbes {
			probes = fmt.Sprintf("%d of %d probes", c.Probes, f.cancelProbes)
		}
		what := "notification handed to the transport"
		if c.ByStreamClose {
			what = "stream closed"
		}
		fmt.Fprintf(w, "cancel      %s: Cancel to %s p50 %s, max %s\n",
			probes, what, human(c.WriteP50Ms), human(c.WriteMaxMs))
		if c.ByStreamClose {
			fmt.Fprintf(w, "after it    late traffic not observable: in protocol %s over Streamable HTTP the cancel closes the stream; %d answered before the cancel\n",
				r.Server.ProtocolVersion, c.AnsweredFirst)
			return
		}
		within := f.watch
		if c.watched < within { // interrupted, or the server is gone
			within = c.watched.Round(time.Millisecond)
		}
		fmt.Fprintf(w, "after it    within %s: %s, %s, %d late progress; %d answered before the cancel\n", within,
			english.Plural(c.LateResponses, "late response"), english.Plural(c.LateErrors, "late error"), c.LateProgress, c.AnsweredFirst)
	}
}

// overTransport names an HTTP transport for the header; stdio, the usual
// case, goes unsaid so the header stays as it was.
func overTransport(t string) string {
	switch t {
	case "http":
		return ", over Streamable HTTP"
	case "sse":
		return ", over legacy HTTP+SSE"
	}
	return ""
}
