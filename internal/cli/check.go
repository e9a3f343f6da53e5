package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/check"
	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/otlprecv"
	"github.com/mcpoke/mcpoke/session"
)

// checkFlags are the check command's flags.
type checkFlags struct {
	tool string
	// otlpReceive is --otlp-receive: where the server's spans come in.
	otlpReceive string
	args        string
	only, skip  string
	listen      time.Duration
	load        int
	seed        int64
	json        bool
	markdown    bool
	junit       string
	transcript  string
	protocol    string
	pingTimeout time.Duration
	minChecks   int
	strict      bool
	timeoutFlags
}

func newCheckCommand(g *globalFlags) *cobra.Command {
	f := &checkFlags{}
	cmd := &cobra.Command{
		Use:   "check [flags] [-- CMD ARGS...]",
		Short: "Grade how a server handles cancellation, with a report to file or to gate CI",
		Long: `Grade a server's cancellation behaviour. Each check names the spec sentence it tests
(MUST, SHOULD or MAY, and the protocol versions that have it) and gives the evidence:
times, frames and counts.

  1  a cancelled call gets no response                          SHOULD (2026-07-28: MUST NOT send)
  2  progress stops after the cancel                            SHOULD (MUST after an answer;
                                                                2026-07-28: MUST NOT send)
     progress names only tokens mcpoke sent                     MUST
  3  the server is healthy afterwards: ping and tools/list      MUST
  4  cancels for an unknown id, a finished request, malformed   SHOULD be ignored
  5  a cancel for "N" (string) does not cancel request N        SHOULD be ignored
  6  under load: calls cancelled at random moments (--load)     MUST answer the others
  7  tasks/cancel ends a running task cancelled, refuses       MUST
     a finished one (when the server has tasks, 2025);
     is acknowledged (the tasks extension, 2026-07-28)          MUST
  8  over HTTP: the POSTed cancel is honoured, and a stream     SHOULD NOT take a drop
     dropped mid-call is resumed, not taken for a cancel        for a cancel (2025)
     closing a call's stream stops its work (2026-07-28)        MUST
  9  the server's own request (sampling, elicitation): it is    SHOULD cancel it,
     cancelled with the call that asked it, and the answer      SHOULD ignore the answer,
     mcpoke sends anyway is ignored; a next call works          MUST survive (2025)

It picks the tool to cancel itself (one that reports progress, else the slowest of a
short probe of the tools that look slow, with any duration argument set to 3 seconds),
or takes --tool NAME --args JSON. A SHOULD broken is a warning; only a MUST broken fails.

Levels follow the run's era and transport: in 2026-07-28 the stdio and Streamable HTTP
pages say a server MUST NOT send any further messages for a cancelled request, so an answer
or progress after the cancel fails there (a SHOULD, a warning, before). A frame that came
within the in-flight window (twice the slowest ping round trip measured in the run) may have
crossed the cancel and is not counted; the evidence says which window was used. Pings get
3 × the slowest round trip measured (at least 5s; --ping-timeout sets it), so a slow but
correct server passes.

 10  the server stops working: the CPU time of its process      SHOULD stop processing
     family (stdio servers mcpoke started, Linux), read from
     /proc before the call, while it works and after the cancel

The summary counts the checks that ran; --min-checks N and --strict make a run that tested
too little fail, for CI. --json names, per check, the conformance suite's scenarios
(cancellation, progress-notifications) that test the same behaviour.

Exit codes:
  0  no MUST failed
  1  a MUST failed, or --min-checks/--strict: too few checks ran
  2  bad usage, or the server could not be started
  4  the run gave up after --max-timeout (the report says what was checked)`,
		Example: `  # The built-in demo server
  mcpoke check

  # The reference server, as JSON, with a JUnit file for CI
  mcpoke check --json --junit check.xml -- npx -y @modelcontextprotocol/server-everything

  # Only checks 1 and 2, on a tool of your choice, as Markdown for a bug report
  mcpoke check --only 1,2 --tool slow --args '{"seconds":5}' --markdown -- ./my-server`,
		Args: noArgsBeforeDash("check"),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := resolveSpec(g, dashArgs(cmd, args))
			if err != nil {
				return err
			}
			return runCheck(cmd.Context(), cmd.OutOrStdout(), g, spec, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.tool, "tool", "", "the tool to call and cancel (default: picked by a short probe)")
	fl.StringVar(&f.args, "args", "", "its arguments as a JSON OBJECT (default: built from its inputSchema)")
	fl.StringVar(&f.only, "only", "", "run only these checks: a comma-separated LIST of numbers")
	fl.StringVar(&f.skip, "skip", "", "leave out these checks: a comma-separated LIST of numbers")
	fl.DurationVar(&f.listen, "listen", check.DefaultListen, "how long at least to watch for a response or progress after a cancel (always until a whole call would have ended)")
	fl.IntVar(&f.load, "load", check.DefaultLoad, "how many calls check 6 makes, half of them cancelled at random moments")
	fl.Int64Var(&f.seed, "seed", 1, "seed of check 6's random cancel moments")
	fl.BoolVar(&f.json, "json", false, "print the report as one JSON object")
	fl.BoolVar(&f.markdown, "markdown", false, "print the report as Markdown, to paste into an issue tracker")
	fl.StringVar(&f.junit, "junit", "", "also write the report as JUnit XML to FILE, for CI")
	fl.StringVar(&f.transcript, "transcript", "", "write an NDJSON transcript of the whole run to FILE")
	fl.StringVar(&f.otlpReceive, "otlp-receive", "", "receive the server's spans over OTLP/HTTP on HOST:PORT (loopback: 127.0.0.1:4318; implies --trace): "+
		"check 10 takes the cancelled call's server span as evidence where the server's CPU cannot be read (over HTTP), and cites it beside the CPU where it can")
	fl.DurationVar(&f.pingTimeout, "ping-timeout", 0, "how long a liveness ping may take (default: 3 × the slowest round trip measured in the run, at least 5s)")
	fl.IntVar(&f.minChecks, "min-checks", 0, "exit 1 when fewer than N checks ran (were not skipped), so that CI sees a run that tested little")
	fl.BoolVar(&f.strict, "strict", false, "exit 1 when a check that applies to this server was skipped (a feature it lacks, like tasks or HTTP, is no skip that counts)")
	protocolFlag(fl, &f.protocol)
	// check's calls that must complete are waited for less long than
	// call's: a judge that waits a minute on each of nine checks is slow
	// to say a server hangs.
	fl.DurationVar(&f.timeout, "timeout", check.DefaultCallTimeout, "give up on a call a check needs answered after DUR; it counts as unanswered (0: never)")
	fl.DurationVar(&f.maxTimeout, "max-timeout", defaultMaxTimeout, "give up on the whole run after DUR, reporting what was checked (0: never)")
	return cmd
}

// checkOptions turns the flags into the run's options, or a usage error.
func (f *checkFlags) checkOptions() (check.Options, error) {
	opts := check.Options{Tool: f.tool, Listen: f.listen, Load: f.load, Seed: f.seed, CallTimeout: f.timeout, PingTimeout: f.pingTimeout}
	if f.timeout == 0 {
		opts.CallTimeout = math.MaxInt64 // never
	}
	if err := f.checkTimeouts(); err != nil {
		return opts, err
	}
	switch {
	case f.json && f.markdown:
		return opts, usageError("--json and --markdown are two formats of the same report: choose one")
	case f.listen <= 0:
		return opts, usageError("--listen must be a positive duration, like 2s")
	case f.load <= 0:
		return opts, usageError("--load must be at least 1")
	case f.pingTimeout < 0:
		return opts, usageError("--ping-timeout must be a positive duration, like 10s")
	case f.minChecks < 0 || f.minChecks > len(check.IDs()):
		return opts, usageError("--min-checks must be between 0 and %d, the number of checks", len(check.IDs()))
	case f.args != "" && f.tool == "":
		return opts, usageError("--args goes with --tool")
	}
	if f.args != "" {
		args, err := parseArgs(f.args)
		if err != nil {
			return opts, err
		}
		opts.Args = args
	}
	var err error
	if opts.Only, err = checkIDs("only", f.only); err != nil {
		return opts, err
	}
	if opts.Skip, err = checkIDs("skip", f.skip); err != nil {
		return opts, err
	}
	return opts, nil
}

// checkIDs reads a comma-separated list of check numbers.
func checkIDs(flag, list string) ([]int, error) {
	var ids []int
	for _, part := range strings.Split(list, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		id, err := strconv.Atoi(part)
		if err != nil || id < 1 || id > len(check.IDs()) {
			return nil, usageError("--%s: %s is not a check; the checks are 1 to %d", flag, quote(part), len(check.IDs()))
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// runCheck connects, runs the checks and writes the report.
func runCheck(ctx context.Context, stdout io.Writer, g *globalFlags, spec connect.Spec, f *checkFlags) error {
	opts, err := f.checkOptions()
	if err != nil {
		return err
	}
	var junit io.WriteCloser
	if f.junit != "" {
		file, err := openOutput("junit", f.junit)
		if err != nil {
			return err
		}
		junit = file
		defer junit.Close()
	}
	// The settle window outlasts --listen, so that a cancelled call is
	// cancelling (not yet settled) while check watches it. What comes
	// after is kept as its late traffic either way (see .ci/mutants.md).
	opts.Answerer = check.NewAnswerer()
	cfg := session.Config{SettleWindow: f.listen + time.Second, UnpredictableIDs: true}
	if f.otlpReceive != "" {
		recv, err := otlprecv.Listen(f.otlpReceive)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		defer recv.Close()
		opts.Spans, cfg.Trace = recv, true
		if spec.Command != "" && !hasEnv(spec.Env, "OTEL_EXPORTER_OTLP_ENDPOINT") {
			spec.Env = append(append([]string(nil), spec.Env...), "OTEL_EXPORTER_OTLP_ENDPOINT="+recv.Endpoint())
		}
	}
	srv, err := openServer(ctx, g, spec, serverOptions{protocol: f.protocol, transcript: f.transcript,
		session: cfg, prepare: opts.Answerer.Prepare, followTasks: true})
	if err != nil {
		return err
	}
	defer srv.Close()
	if f.maxTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, f.maxTimeout, fmt.Errorf("check gave up after %s in all (--max-timeout)", f.maxTimeout))
		defer cancel()
	}
	rep, err := check.Run(ctx, srv, opts)
	var gaveUp error // --max-timeout ended the run
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		gaveUp = withCode(ExitTimedOut, context.Cause(ctx))
	}
	if err != nil && gaveUp != nil {
		return withCode(ExitTimedOut, fmt.Errorf("%v: %w", context.Cause(ctx), err))
	}
	if err != nil {
		if errors.Is(err, check.ErrUsage) {
			return usageError("%s", strings.TrimPrefix(err.Error(), check.ErrUsage.Error()+": "))
		}
		return err
	}
	srv.Close()
	if junit != nil {
		if err := check.WriteJUnit(junit, rep); err != nil {
			return err
		}
	}
	switch {
	case f.json:
		err = writeJSON(stdout, rep, checkWarnings(rep))
	case f.markdown:
		err = check.WriteMarkdown(stdout, rep)
	default:
		err = check.WriteText(stdout, rep)
	}
	if err != nil {
		return err
	}
	if gaveUp != nil {
		return gaveUp
	}
	if rep.MustFailed() {
		return quietExit(ExitFailed)
	}
	if why := f.tooLittle(rep); why != "" {
		return withCode(ExitFailed, errors.New(why))
	}
	return nil
}

// tooLittle says why the run tested too little for --min-checks or
// --strict, or "".
func (f *checkFlags) tooLittle(rep *check.Report) string {
	s := rep.Summary
	switch {
	case f.minChecks > 0 && s.Ran < f.minChecks:
		return fmt.Sprintf("only %d of %d checks ran (--min-checks %d); the skipped ones say why", s.Ran, s.Selected, f.minChecks)
	case f.strict && s.Missed > 0:
		var ids []string
		for _, c := range rep.Checks {
			if c.Status == check.Skip && !c.NotApplicable {
				ids = append(ids, strconv.Itoa(c.ID))
			}
		}
		noun, verb := "check", "was"
		if len(ids) > 1 {
			noun, verb = "checks", "were"
		}
		return fmt.Sprintf("--strict: %s %s could have run on this server but %s skipped; each says why",
			noun, strings.Join(ids, ", "), verb)
	}
	return ""
}

// checkWarnings flags the report's text that was not valid UTF-8.
func checkWarnings(rep *check.Report) []jsonWarning {
	ws := flagInvalidText(nil, "/server/name", rep.Server.Name)
	ws = flagInvalidText(ws, "/server/version", rep.Server.Version)
	for i, c := range rep.Checks {
		p := "/checks/" + strconv.Itoa(i) + "/evidence/"
		for j, fact := range c.Evidence.Facts {
			ws = flagInvalidText(ws, p+"facts/"+strconv.Itoa(j), fact)
		}
		for j, fr := range c.Evidence.Frames {
			ws = flagInvalidText(ws, p+"frames/"+strconv.Itoa(j)+"/frame", fr.Frame)
		}
	}
	return ws
}
