package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/proxy"
	"github.com/mcpoke/mcpoke/internal/transcript"
	"github.com/mcpoke/mcpoke/transport"
)

// proxyFlags are mcpoke proxy's own flags.
type proxyFlags struct {
	name        string
	transcript  string
	grace       time.Duration
	noAttach    bool
	listen      string
	allowRemote bool
	report      string
	onKill      string
	forwardLate bool
	faults      proxy.Faults
	// tracing is the global --otlp-endpoint (and --trace with the
	// OTEL_EXPORTER_OTLP_* environment): the host's requests as spans.
	tracing traceFlags
}

const proxyLong = `Stand between a host (Claude Desktop, Cursor, VS Code, Claude Code, an SDK
client, mcpoke itself) and an MCP server, relay their traffic unchanged, and record it.

The host starts "mcpoke proxy -- CMD ARGS..." in place of the server, and the proxy
starts the server. Every byte passes on unchanged, in both directions, in order, as
soon as it arrives: ids, key order, escapes, invalid UTF-8, lines that are not JSON
and lines of any length are relayed as they came; the proxy never answers for either
side. The server's stderr goes to the proxy's stderr, which hosts already log.

The server runs in a session of its own, as mcpoke's servers always do. When the host
closes the proxy's stdin, the server's stdin is closed; a server that has not exited
after --grace gets SIGTERM, and after another --grace SIGKILL, with every process it
spawned. When the server exits, the proxy passes on its last output and exits with
the server's status (128+N after signal N).

Records are a side effect: with --transcript FILE every line that passed is written
with its direction and time in mcpoke's transcript format (NDJSON, as call
--transcript writes it), what the host sent as "out" and what the server sent as
"in", its stderr as "stderr". "mcpoke diagram FILE" draws the host's requests from
it, with cancellations and late answers. Lines that are not JSON-RPC frames are
noted "noise"; a line over 1 MiB is recorded by its first 1 MiB and last 4 KiB with
its size (the relay passed it whole). Records are made off the relay's path and
never slow it down beyond a queue of 4,096 reads or 4 MiB.

Over HTTP, "mcpoke proxy --url UPSTREAM --listen 127.0.0.1:PORT" is a reverse proxy
for Streamable HTTP and legacy HTTP+SSE: point the host at http://127.0.0.1:PORT with
the upstream's path. POST, GET and DELETE pass with every header both ways
(Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method,
Mcp-Name...) and bodies unchanged; event streams reach the host event by event as
they come. A host that closes a response stream closes the upstream's at once: in
protocol 2026-07-28 that is how a host cancels, and the records say so. Legacy SSE's
endpoint event is made relative when it names the upstream, so that the host posts
to the proxy. Only loopback addresses are served unless --allow-remote. Credentials
pass through but never reach a record: records hold messages and HTTP status lines,
no header values.

OAuth through the proxy: the upstream's protected-resource metadata names the
upstream's URL as the resource, not the proxy's; a host that checks that the
resource matches the URL it uses (as the spec asks) refuses it. Log in to the
upstream directly, or give the host a token it already has.

While it runs, "mcpoke attach" follows its traffic from the start of its history
(the last 10,000 lines and those of every request still open), over a Unix socket
only you can reach; --no-attach turns that off. Its requests are tracked as
pending, answered, failed, cancelled by the host (notifications/cancelled with its
reason, or a closed stream), late (answered after the host's cancel, and passed
on), or abandoned (the host left with them pending and no cancel).

Grading a host in five minutes (the report card)
  1. Add mcpoke's demo server to the host's config behind the proxy, with a card:
       "demo": {"command": "mcpoke", "args": ["proxy", "--name", "demo", "--report",
                "/tmp/demo-card.md", "--", "mcpoke", "demo-server"]}
     (mcpoke proxy install --config FILE --server NAME puts an existing entry behind
     the proxy; add "--report", FILE to its args), and restart the host. The
     demo's bait tools: sleep (slow; with "steps" it reports progress, e.g.
     {"seconds": 30, "steps": 30}; with "steps": 1 it is silent until the end),
     stubborn (answers even after a cancel: a late answer), and sleep with
     {"seconds": 3600, "steps": 1}, which in practice never answers.
  2. Ask the host's model to call sleep for 30 seconds, and press Stop after a few.
  3. Ask for sleep with {"seconds": 3600, "steps": 1} and let it time out; then for
     sleep with {"seconds": 3600, "steps": 3600} (progress every second) to see
     whether progress resets the timeout, and whether there is a maximum.
  4. Read the card: "mcpoke attach demo --card" while it runs, or the --report file
     when the host quits (.md, or .json by its extension). Each line gives the spec
     sentence and level it grades against (2025 eras or 2026-07-28, stdio or HTTP)
     and the evidence: request ids and times. Form: the right cancel for the era and
     transport, never initialize, only ids in progress. When: the host's effective
     timeout, whether progress resets it, a maximum. Progress: progressToken on
     calls. After a cancel: late answers that reached it, calls sent again after
     their cancel (the server may run them twice). On close: requests left pending.

Provoking a host (stdio and HTTP)
  The kill switch: "mcpoke attach NAME --kill ID [--reason R]" (or --kill-all; over
  HTTP add --session sN, the host session as the records name it) cancels
  the host's pending request upstream on its behalf, with notifications/cancelled
  carrying the host's own id, and answers the host with a JSON-RPC error (code -32800)
  saying mcpoke's proxy cancelled it; --on-kill silent answers nothing, to see what the
  host does without an answer. The server's answer after the kill is recorded and
  dropped, unless --forward-late. Records, the request table and attach --requests say
  who cancelled (host or proxy); the card leaves the proxy's kills out of the grades.
  Faults: --delay D holds every answer D; --drop-progress drops progress
  notifications; --answer-after-cancel holds each tools/call answer until the host
  cancels the call (or --max-hold), then passes it on: the late answer a host must
  ignore, on demand. "mcpoke attach NAME --hold ID" holds one answer, --release ID
  passes it on, --drop ID drops it. A fault touches only its frames; every other line
  passes byte for byte. The attach socket's control messages (for tools and the TUI)
  are described in internal/proxy/control.go.`

const proxyExample = `  # In a host's config, in place of the server's command
  {"mcpServers": {"everything": {"command": "mcpoke",
    "args": ["proxy", "--name", "everything", "--transcript", "/tmp/everything.ndjson",
             "--", "npx", "-y", "@modelcontextprotocol/server-everything"]}}}

  # Then draw what the host did, or follow it live
  mcpoke diagram /tmp/everything.ndjson
  mcpoke attach everything

  # Over HTTP: the host uses http://127.0.0.1:8931/mcp
  mcpoke proxy --url http://127.0.0.1:3001/mcp --listen 127.0.0.1:8931`

func newProxyCommand(g *globalFlags) *cobra.Command {
	var f proxyFlags
	cmd := &cobra.Command{
		Use:     "proxy -- CMD...",
		Short:   "Relay a host's traffic to a server unchanged, and record it",
		Long:    proxyLong,
		Example: proxyExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			server := dashArgs(cmd, args)
			f.tracing = g.tracing
			if f.onKill != "error" && f.onKill != "silent" {
				return usageError("proxy --on-kill %q: want error or silent", f.onKill)
			}
			if g.url != "" {
				if len(server) > 0 {
					return usageError("proxy: give either --url or a command after --, not both")
				}
				return runHTTPProxy(cmd, f, g.url)
			}
			if len(server) == 0 {
				return usageError("proxy: give the server's command after --, e.g. mcpoke proxy -- npx -y @modelcontextprotocol/server-everything")
			}
			return runStdioProxy(cmd, f, server)
		},
	}
	cmd.Flags().StringVar(&f.name, "name", "", "NAME of this proxy, for mcpoke attach and the records (default: the command's base name)")
	cmd.Flags().StringVar(&f.transcript, "transcript", "", "record every line that passed to FILE (NDJSON, as call --transcript)")
	cmd.Flags().DurationVar(&f.grace, "grace", transport.DefaultCloseGrace, "how long the server gets to exit after the host closes its input, and again after SIGTERM")
	cmd.Flags().StringVar(&f.listen, "listen", "", "with --url: serve the proxy at ADDR (host:port; loopback only unless --allow-remote)")
	cmd.Flags().BoolVar(&f.allowRemote, "allow-remote", false, "with --url: allow a --listen address that is not loopback")
	cmd.Flags().BoolVar(&f.noAttach, "no-attach", false, "do not listen for mcpoke attach")
	cmd.Flags().StringVar(&f.report, "report", "", "write the host's report card to FILE when the proxy ends (.json for JSON, else Markdown)")
	cmd.Flags().StringVar(&f.onKill, "on-kill", "error", "what the host gets for a request mcpoke attach --kill cancelled: error (a JSON-RPC error that says the proxy cancelled it) or silent (nothing)")
	cmd.Flags().DurationVar(&f.faults.Delay, "delay", 0, "fault: hold every answer from the server D before passing it on")
	cmd.Flags().BoolVar(&f.faults.DropProgress, "drop-progress", false, "fault: drop the server's notifications/progress")
	cmd.Flags().BoolVar(&f.faults.AnswerAfterCancel, "answer-after-cancel", false, "fault: hold each tools/call answer until the host cancels the call (or --max-hold), then pass it on: a late answer on demand")
	cmd.Flags().DurationVar(&f.faults.MaxHold, "max-hold", proxy.DefaultMaxHold, "the longest an answer is held (--answer-after-cancel, attach --hold)")
	cmd.Flags().BoolVar(&f.forwardLate, "forward-late", false, "pass on the server's answer to a request the proxy cancelled (by default it is recorded and dropped)")
	cmd.AddCommand(newProxyInstallCommand(g, false), newProxyInstallCommand(g, true))
	return cmd
}

func runStdioProxy(cmd *cobra.Command, f proxyFlags, server []string) error {
	// A host that goes away must not kill the proxy with SIGPIPE before
	// it stops the server: writes to it fail instead. Notify, not Ignore,
	// so that the server does not inherit an ignored SIGPIPE.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)

	name := f.name
	if name == "" {
		name = filepath.Base(server[0])
	}
	rec, controls, end, err := startProxyRecords(cmd, f, name, proxy.RedactCommandLine(server), "stdio")
	if err != nil {
		return err
	}
	code, err := proxy.RunStdio(cmd.Context(), proxy.StdioOptions{
		Command: server[0], Args: server[1:],
		HostIn: os.Stdin, HostOut: os.Stdout, HostErr: os.Stderr,
		CloseGrace: f.grace, Recorder: rec,
		Controls: controls, Kill: f.killOptions(), Faults: f.faults,
	})
	end()
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("proxy: %w", err))
	}
	return quietExit(code)
}

func (f proxyFlags) killOptions() proxy.KillOptions {
	return proxy.KillOptions{Silent: f.onKill == "silent", ForwardLate: f.forwardLate}
}

// startProxyRecords starts the recorder with the request table, the
// host's report card, attach's history and socket (with its controls),
// and --transcript. end hands the last records to them all, writes
// --report, then closes them.
func startProxyRecords(cmd *cobra.Command, f proxyFlags, name, upstream, over string) (*proxy.Recorder, *proxy.Controls, func(), error) {
	rec := proxy.NewRecorder()
	start := time.Now()
	var closers []func()
	// The request table, the card and attach's history see every record;
	// the history keeps them as transcript lines.
	table := proxy.NewTable()
	card := proxy.NewCard(over)
	controls := &proxy.Controls{Card: card, Table: table}
	end := func() {
		rec.Close() // first: the transcript and attached clients get every line
		if f.report != "" {
			if err := writeCard(f.report, card.Report()); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "mcpoke proxy: --report: %v\n", err)
			}
		}
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	history := proxy.NewHistory(table)
	rec.ObserveParsed(table.ObserveParsed)
	rec.ObserveParsed(card.ObserveParsed)
	rec.ObserveParsed(history.NoteParsed)
	// One transcript writer feeds the history and --transcript: each
	// frame is read for its notes once.
	lines := &transcriptTee{history: history}
	if f.transcript != "" {
		file, err := openOutput("transcript", f.transcript)
		if err != nil {
			rec.Close()
			return nil, nil, nil, err
		}
		w := bufio.NewWriterSize(file, 64<<10)
		lines.file = w
		rec.OnIdle(func() { w.Flush() })
		closers = append(closers, func() {
			if err := w.Flush(); err != nil && lines.err == nil {
				lines.err = err
			}
			file.Close()
			if lines.err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "mcpoke proxy: transcript %s: %v\n", f.transcript, lines.err)
			}
		})
	}
	rec.Observe(transcript.New(lines, start).Observe)
	if f.tracing.exporting() {
		closeSpans, err := exportHostSpans(cmd, rec, f.tracing, over)
		if err != nil {
			rec.Close()
			return nil, nil, nil, err
		}
		closers = append(closers, closeSpans)
	}
	rec.Event(start, fmt.Sprintf("mcpoke proxy %s (pid %d) relays to: %s", name, os.Getpid(), upstream))
	if !f.noAttach {
		attach, err := proxy.ServeAttachControls(name, history, controls)
		if err != nil {
			// The relay is what the host needs; attach is a bonus.
			fmt.Fprintf(cmd.ErrOrStderr(), "mcpoke proxy: mcpoke attach will not reach this proxy: %v\n", err)
		} else {
			closers = append(closers, attach.Close)
		}
	}
	return rec, controls, end, nil
}

// transcriptTee hands each transcript line to attach's history and to
// the --transcript file, if any. A file that fails (a full disk) is
// given up and its error kept; the history goes on.
type transcriptTee struct {
	history *proxy.History
	file    io.Writer
	err     error // the file's first error; set on the recorder's goroutine
}

func (t *transcriptTee) Write(line []byte) (int, error) {
	if t.file != nil && t.err == nil {
		_, t.err = t.file.Write(line)
	}
	return t.history.Write(line)
}

// writeCard writes the host's report card to path: JSON for a .json
// file, Markdown otherwise. It writes a temporary file beside path and
// renames it, so that nobody reads half a card.
func writeCard(path string, rep *proxy.CardReport) error {
	file, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		err = proxy.WriteCardJSON(file, rep)
	} else {
		err = proxy.WriteCardMarkdown(file, rep)
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(file.Name(), path)
	}
	if err != nil {
		os.Remove(file.Name())
	}
	return err
}
