package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/proxy"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/internal/wire"
)

const attachLong = `Follow a running mcpoke proxy: its traffic from the start of its history (the
last 10,000 lines, and the lines of every request still open), then live, until the
proxy ends or you press Ctrl-C. Leaving never disturbs the relay.

Proxies listen on a Unix socket (mode 0600) in a directory only you can enter
($XDG_RUNTIME_DIR/mcpoke, or mcpoke-UID in the temporary dir), and refuse processes
of other users. Without NAME, with one proxy running it is the one; with several
they are listed. NAME is a proxy's --name, or NAME.PID when several share it.

In a terminal it opens the TUI on the proxy: the rows are the host's requests and
the server's requests to the host, with their states (pending, answered, failed,
cancelled by the host with its reason or by closing the request's stream, late when
the server answered after the cancel and the answer went on, failed when the host
disconnected with the request pending and sent no cancel), the timeline (d), the
wire log (w) and W to write the transcript. The header names the host (its
clientInfo), the server, the protocol version and the transport. The keys act on
the host's requests through the proxy, as the flags below do: c cancels the
selected request on the host's behalf, C all of them, R with a reason you type;
h holds the answer to the selected request when it comes, enter passes a held
answer on, x drops it (the host never gets it); i shows the host's report card.
The proxy's reply goes to the status line. Calling tools, reconnecting and the
like are refused: the session is the host's.

Without a terminal, or with --text, --json or --requests, it follows as text: one line per frame, which way it went (host → server, or server →
host) and what it is, made safe for the terminal; --json writes the lines as they
come, in the transcript format, for mcpoke diagram or jq.`

func newAttachCommand() *cobra.Command {
	var asJSON, requests, textOnly, card, killAll bool
	var killID, reason, holdID, releaseID, dropID, sess string
	cmd := &cobra.Command{
		Use:   "attach [NAME]",
		Short: "Follow the traffic of a running mcpoke proxy",
		Long:  attachLong,
		Example: `  # What the host is doing right now, from the start
  mcpoke attach everything

  # Keep it, and draw it
  mcpoke attach everything --json > host.ndjson; mcpoke diagram host.ndjson`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			running, err := proxy.ListRunning()
			if err != nil {
				return withCode(ExitFailed, fmt.Errorf("attach: %w", err))
			}
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			var match []proxy.Running
			for _, r := range running {
				if name == "" || r.Name == name || r.Name+"."+strconv.Itoa(r.Pid) == name {
					match = append(match, r)
				}
			}
			switch {
			case len(match) == 0 && name == "":
				return withCode(ExitFailed, fmt.Errorf("attach: no mcpoke proxy is running (none listens in %s)", proxy.SocketDir()))
			case len(match) == 0:
				return withCode(ExitFailed, fmt.Errorf("attach: no mcpoke proxy named %q is running; mcpoke attach lists them", name))
			case len(match) > 1:
				fmt.Fprintln(cmd.OutOrStdout(), "Several proxies are running; attach to one by NAME (or NAME.PID):")
				for _, r := range match {
					fmt.Fprintf(cmd.OutOrStdout(), "  %s  (pid %d)\n", termtext.Line(r.Name), r.Pid)
				}
				return nil
			}
			switch {
			case card:
				return attachControl(cmd, match[0], proxy.ControlRequest{Control: proxy.ControlCard, Session: sess}, asJSON)
			case killAll:
				return attachControl(cmd, match[0], proxy.ControlRequest{Control: proxy.ControlKillAll, Reason: reason}, asJSON)
			case holdID != "":
				return attachControl(cmd, match[0], proxy.ControlRequest{Control: proxy.ControlHold, ID: idArg(holdID), Session: sess}, asJSON)
			case releaseID != "":
				return attachControl(cmd, match[0], proxy.ControlRequest{Control: proxy.ControlRelease, ID: idArg(releaseID), Session: sess}, asJSON)
			case dropID != "":
				return attachControl(cmd, match[0], proxy.ControlRequest{Control: proxy.ControlDrop, ID: idArg(dropID), Session: sess}, asJSON)
			case killID != "":
				return attachControl(cmd, match[0], proxy.ControlRequest{Control: proxy.ControlKill, ID: idArg(killID), Reason: reason, Session: sess}, asJSON)
			}
			if !asJSON && !requests && !textOnly && attachIsInteractive() {
				return attachTUI(cmd, match[0])
			}
			return follow(cmd, match[0], asJSON, requests)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "write the transcript lines as they come (NDJSON)")
	cmd.Flags().BoolVar(&card, "card", false, "print the host's report card as it stands now (Markdown; JSON with --json), then leave")
	cmd.Flags().StringVar(&killID, "kill", "", "cancel the host's pending request ID upstream on its behalf (the id as the host sent it: 3, or '\"abc\"' for a string; a bare word is taken as a string), then leave")
	cmd.Flags().BoolVar(&killAll, "kill-all", false, "cancel all of the host's pending requests upstream on its behalf, then leave")
	cmd.Flags().StringVar(&reason, "reason", "", "with --kill or --kill-all: the reason the cancel carries")
	cmd.Flags().BoolVar(&textOnly, "text", false, "follow as text lines even in a terminal, instead of opening the TUI")
	cmd.Flags().BoolVar(&requests, "requests", false, "when the proxy ends (or on Ctrl-C), list the requests that passed, each with its state")
	cmd.Flags().StringVar(&sess, "session", "", "with --kill, --hold, --release or --drop over HTTP: the host session (s1, s2, ... as --requests and the records name them) whose request ID is meant; with --card, the session whose card alone is printed")
	cmd.Flags().StringVar(&holdID, "hold", "", "hold the answer to the host's pending request ID when it comes, then leave")
	cmd.Flags().StringVar(&releaseID, "release", "", "pass the held answer to request ID on to the host, then leave")
	cmd.Flags().StringVar(&dropID, "drop", "", "drop the held answer to request ID: the host never gets it")
	cmd.MarkFlagsMutuallyExclusive("card", "kill", "kill-all", "requests", "hold", "release", "drop")
	return cmd
}

// follow copies the proxy's lines to stdout until it ends or the
// command's context does.
func follow(cmd *cobra.Command, r proxy.Running, asJSON, requests bool) error {
	c, err := net.Dial("unix", r.Path)
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("attach to %s (pid %d): %w", r.Name, r.Pid, err))
	}
	defer c.Close()
	go func() {
		<-cmd.Context().Done()
		c.Close()
	}()
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	table := proxy.NewTable()
	start := time.Now()
	if requests {
		defer func() { printRequests(out, table.Rows()) }()
	}
	br := bufio.NewReaderSize(c, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if rec, ok := proxy.RecordOfLine(line, start); ok && requests {
			table.Observe(rec)
		}
		if len(line) > 0 {
			if asJSON {
				out.Write(line)
			} else {
				out.WriteString(attachText(line))
			}
		}
		if br.Buffered() == 0 {
			out.Flush()
		}
		if err == io.EOF || cmd.Context().Err() != nil {
			return nil
		}
		if err != nil {
			return withCode(ExitFailed, fmt.Errorf("attach: %w", err))
		}
	}
}

// printRequests lists the requests that passed a proxy with their
// states, the host's and the server's.
func printRequests(w io.Writer, rows []proxy.Row) {
	fmt.Fprintf(w, "\n%d requests:\n", len(rows))
	for _, r := range rows {
		from := "host  "
		if r.From == wire.In {
			from = "server"
		}
		id := proxy.RequestRef{Session: r.Session, ID: r.ID}.String()
		fmt.Fprintf(w, "  %s %-8s %-24s %s", from, termtext.Line(id), termtext.Line(r.Method), r.State)
		if r.CancelReason != "" {
			fmt.Fprintf(w, " (%s)", termtext.Quote(r.CancelReason))
		}
		if r.State == proxy.Late {
			fmt.Fprintf(w, ", answered %s after the cancel", r.LateBy.Round(time.Millisecond))
		}
		if r.Progress > 0 {
			fmt.Fprintf(w, ", %d progress", r.Progress)
		}
		switch r.Hold {
		case proxy.HoldHeld:
			fmt.Fprint(w, ", its answer still held by the proxy (the host has not got it)")
		case proxy.HoldPassed, proxy.HoldDropped:
			fmt.Fprintf(w, ", its answer held by the proxy %s, then %s", r.HoldEnded.Sub(r.HeldAt).Round(time.Millisecond), r.Hold)
		}
		fmt.Fprintln(w)
	}
}

// attachText is one transcript line for people: time, way, what.
func attachText(line []byte) string {
	var l struct {
		T     float64         `json:"t"`
		Dir   string          `json:"dir"`
		Msg   json.RawMessage `json:"msg"`
		Raw   *string         `json:"raw"`
		Note  string          `json:"note"`
		Relay string          `json:"relay"`
		HTTP  string          `json:"http"`
		Size  int             `json:"size"`
	}
	if json.Unmarshal(line, &l) != nil {
		return "? " + termtext.Line(string(line)) + "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%10.1fms  ", l.T)
	switch l.Dir {
	case "out":
		b.WriteString("host → server  ")
	case "in":
		b.WriteString("server → host  ")
	case "stderr":
		b.WriteString("server stderr  ")
	default:
		b.WriteString("proxy          ")
	}
	switch {
	case l.Relay != "":
		b.WriteString(termtext.Line(l.Relay))
	case l.HTTP != "":
		b.WriteString(termtext.Line(l.HTTP))
	case len(l.Msg) > 0:
		b.WriteString(describeFrame(l.Msg))
	case l.Raw != nil:
		s := *l.Raw
		if len(s) > 200 {
			s = s[:200] + "…"
		}
		b.WriteString(termtext.Quote(s))
		if l.Size > 0 {
			fmt.Fprintf(&b, " (%d bytes)", l.Size)
		}
	}
	if l.Note != "" {
		b.WriteString("  [" + l.Note + "]")
	}
	b.WriteByte('\n')
	return b.String()
}

// describeFrame names a message: method and id, or the id it answers.
func describeFrame(msg json.RawMessage) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		} `json:"params"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return "batch of messages"
	}
	var b strings.Builder
	switch {
	case m.Method != "":
		b.WriteString(termtext.Line(m.Method))
		if m.Params.Name != "" {
			b.WriteString(" " + termtext.Line(m.Params.Name))
		}
		if len(m.ID) > 0 {
			b.WriteString(" (id " + termtext.Line(string(m.ID)) + ")")
		}
		if len(m.Params.RequestID) > 0 {
			b.WriteString(" (id " + termtext.Line(string(m.Params.RequestID)) + ")")
			if m.Params.Reason != "" {
				b.WriteString(" " + termtext.Quote(m.Params.Reason))
			}
		}
	case m.Error != nil:
		b.WriteString("error for id " + termtext.Line(string(m.ID)) + ": " + termtext.Quote(m.Error.Message))
	default:
		b.WriteString("result for id " + termtext.Line(string(m.ID)))
	}
	return b.String()
}
