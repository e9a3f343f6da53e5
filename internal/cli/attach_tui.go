package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/proxy"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/ui"
	"github.com/mcpoke/mcpoke/ui/rows"
)

// attachIsInteractive: with a terminal on both ends, attach opens the TUI.
func attachIsInteractive() bool {
	return term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
}

// attachTUI opens the TUI on a running proxy. Quitting it only closes
// this end of the socket: the relay never waits on an attached client.
func attachTUI(cmd *cobra.Command, r proxy.Running) error {
	c, err := net.Dial("unix", r.Path)
	if err != nil {
		return withCode(ExitFailed, fmt.Errorf("attach to %s (pid %d): %w", r.Name, r.Pid, err))
	}
	defer c.Close()
	a := attachedProxy(r.Name, proxyStart(r), c)
	a.Control = tuiControl(r)
	m := ui.New(ui.Options{Attached: a})
	_, err = tea.NewProgram(m, tea.WithContext(cmd.Context())).Run()
	if err != nil && cmd.Context().Err() == nil {
		return withCode(ExitFailed, err)
	}
	return nil
}

// attachedProxy reads a proxy's attach stream for the UI: lines become
// wire records and session events (proxy.Watcher).
func attachedProxy(name string, start time.Time, stream io.ReadCloser) *ui.Attached {
	w := proxy.NewWatcher(start)
	return &ui.Attached{
		Name:  name,
		Start: start,
		Run: func(ctx context.Context, record func(wire.Record), item func(any)) error {
			stop := context.AfterFunc(ctx, func() { stream.Close() })
			defer stop()
			br := bufio.NewReaderSize(stream, 64<<10)
			for {
				line, err := br.ReadBytes('\n')
				if rec, events, ok := w.Line(line); ok {
					record(rec)
					for _, e := range events {
						item(e)
					}
					holds(w, item)
				}
				if err == io.EOF {
					for _, e := range w.End(time.Now()) {
						item(e)
					}
					holds(w, item)
					return nil
				}
				if ctx.Err() != nil {
					return nil
				}
				if err != nil {
					return err
				}
			}
		},
		Info: w.Info,
		Header: func() ui.AttachedHeader {
			h := w.Header()
			return ui.AttachedHeader{Host: h.Host, Server: h.Server, Version: h.Version, Transport: h.Transport}
		},
	}
}

// holds hands on the proxy's holds on answers that the watcher's last
// line began or ended, for the rows to show.
func holds(w *proxy.Watcher, item func(any)) {
	for _, h := range w.Holds() {
		item(rows.HoldChanged{Ref: h.Ref, Hold: rows.Hold{At: h.At, Ended: h.Ended, Dropped: h.Dropped}})
	}
}

// proxyStart is about when the proxy started, which its lines' times
// count from: its socket is made a moment after.
func proxyStart(r proxy.Running) time.Time {
	if fi, err := os.Stat(r.Path); err == nil {
		return fi.ModTime()
	}
	return time.Now()
}
