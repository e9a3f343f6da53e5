package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/english"
	"github.com/mcpoke/mcpoke/internal/proxy"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/ui"
)

// controlTimeout bounds the wait for a proxy's reply to a control
// message; the history it sends first passes in far less.
const controlTimeout = 30 * time.Second

// idArg is a --kill ID as JSON: a number or a quoted string as given,
// any other word as a string.
func idArg(s string) json.RawMessage {
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		switch v.(type) {
		case float64, string:
			return json.RawMessage(s)
		}
	}
	b, _ := json.Marshal(s)
	return b
}

// attachControl sends one control message to a running proxy and prints
// its reply.
func attachControl(cmd *cobra.Command, r proxy.Running, req proxy.ControlRequest, asJSON bool) error {
	line, err := sendControl(cmd.Context(), r, req)
	if err != nil {
		return withCode(ExitFailed, err)
	}
	return printReply(cmd, req, line, asJSON)
}

// sendControl writes one control message on a connection of its own and
// returns the proxy's reply line.
func sendControl(ctx context.Context, r proxy.Running, req proxy.ControlRequest) ([]byte, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", r.Path)
	if err != nil {
		return nil, fmt.Errorf("attach to %s (pid %d): %w", r.Name, r.Pid, err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	c.SetDeadline(time.Now().Add(controlTimeout))
	msg, _ := json.Marshal(req)
	if _, err := c.Write(append(msg, '\n')); err != nil {
		return nil, fmt.Errorf("attach: %w", err)
	}
	// The proxy sends its history first; its reply is the line that
	// starts {"reply":.
	br := bufio.NewReaderSize(c, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if bytes.HasPrefix(line, []byte(`{"reply":`)) {
			return line, nil
		}
		if err != nil {
			return nil, fmt.Errorf("attach: no reply from the proxy: %w (an older mcpoke proxy takes no control messages)", err)
		}
	}
}

// tuiControl is the attach TUI's control channel: each message on a
// connection of its own, its reply as text.
func tuiControl(r proxy.Running) func(context.Context, ui.AttachControl) (string, error) {
	return func(ctx context.Context, c ui.AttachControl) (string, error) {
		req := proxy.ControlRequest{Control: c.Control, Reason: c.Reason, Session: c.Session}
		if c.ID != "" {
			req.ID = json.RawMessage(c.ID)
		}
		line, err := sendControl(ctx, r, req)
		if err != nil {
			return "", err
		}
		var rep proxy.ControlReply
		if err := json.Unmarshal(line, &rep); err != nil {
			return "", fmt.Errorf("the proxy's reply: %w", err)
		}
		if rep.Error != "" {
			return "", errors.New(rep.Error)
		}
		if rep.Card != nil {
			return cardText(rep.Card), nil
		}
		return doneText(req, rep), nil
	}
}

// cardText is the report card for the TUI's narrow pane: a line a
// grade, its facts under it; the UI makes it safe for the terminal. A
// card of several host sessions gives each session's card in turn; one
// session's card (the selected row's) names the others.
func cardText(rep *proxy.CardReport) string {
	var b strings.Builder
	if len(rep.Sessions) == 0 {
		title := "Report card of " + rep.Host
		if rep.Session != "" {
			title += ", host session " + rep.Session
		}
		writeCardText(&b, title, rep.Protocol, rep.Transport, rep.Requests, rep.Lines)
		if len(rep.OtherSessions) > 0 {
			fmt.Fprintf(&b, "\nThe proxy has other host sessions, each graded on its own: %s (select one of their rows and ask again)\n",
				strings.Join(rep.OtherSessions, ", "))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Report cards of %d host sessions, each graded on its own\n", len(rep.Sessions))
	for _, s := range rep.Sessions {
		b.WriteString("\n")
		writeCardText(&b, "── host session "+proxy.SessionName(s.Session)+": "+s.Host, s.Protocol, rep.Transport, s.Requests, s.Lines)
	}
	return b.String()
}

func writeCardText(b *strings.Builder, title, protocol, transport string, requests int, lines []proxy.CardLine) {
	fmt.Fprintf(b, "%s\n%s over %s, %s from the host\n", title, protocol, transport, english.Plural(requests, "request"))
	for _, l := range lines {
		fmt.Fprintf(b, "\n%s · %s: %s\n", l.Status, l.Section, l.Title)
		for _, f := range l.Facts {
			fmt.Fprintf(b, "  %s\n", f)
		}
	}
}

// doneText says what a control message did, by the ids it acted on.
func doneText(req proxy.ControlRequest, rep proxy.ControlReply) string {
	ids := make([]string, len(rep.Done))
	for i, id := range rep.Done {
		ids[i] = termtext.Line(id)
	}
	what := map[string]string{proxy.ControlHold: "will hold the answer to", proxy.ControlRelease: "passed on the held answer to",
		proxy.ControlDrop: "dropped the held answer to"}[req.Control]
	if what == "" {
		what = "cancelled on the host's behalf:"
	}
	return what + " " + strings.Join(ids, ", ")
}

func printReply(cmd *cobra.Command, req proxy.ControlRequest, line []byte, asJSON bool) error {
	var rep proxy.ControlReply
	if err := json.Unmarshal(line, &rep); err != nil {
		return withCode(ExitFailed, fmt.Errorf("attach: the proxy's reply: %w", err))
	}
	out := cmd.OutOrStdout()
	if asJSON {
		if rep.Card != nil {
			proxy.WriteCardJSON(out, rep.Card)
		} else {
			out.Write(line)
		}
	}
	if rep.Error != "" {
		return withCode(ExitFailed, fmt.Errorf("attach: %s", termtext.Line(rep.Error)))
	}
	if asJSON {
		return nil
	}
	switch {
	case rep.Card != nil:
		return proxy.WriteCardMarkdown(out, rep.Card)
	default:
		fmt.Fprintln(out, doneText(req, rep))
	}
	return nil
}
