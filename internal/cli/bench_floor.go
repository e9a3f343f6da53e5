package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/floor"
	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/session"
)

// floorEchoCommand is the far end of bench --floor: mcpoke itself,
// answering each line on stdin with a line of --size bytes. Hidden: it is
// a measuring instrument, not a feature.
const floorEchoCommand = "floor-echo"

func newFloorEchoCommand() *cobra.Command {
	var size int
	cmd := &cobra.Command{
		Use:    floorEchoCommand,
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return floor.Echo(cmd.InOrStdin(), os.Stdout, floor.Line(size))
		},
	}
	cmd.Flags().IntVar(&size, "size", 100, "bytes in each answer line")
	return cmd
}

// floorStats is the pipe floor measured beside a bench run, in ms.
type floorStats struct {
	P50Ms        float64 `json:"p50Ms"`
	P90Ms        float64 `json:"p90Ms"`
	P99Ms        float64 `json:"p99Ms"`
	CallsPerSec  float64 `json:"callsPerSec"`
	RequestBytes int     `json:"requestBytes"`
	ReplyBytes   int     `json:"replyBytes"`
}

// frameSizes takes the sizes of a call's request and response frames as
// they pass on the wire, without their newlines: in 2026-07-28 each
// request carries the client's _meta, which the floor's lines must carry
// too. bench's first call is the one measured: the request is the first
// frame out after watchFrameSizes, the response the last frame in before
// sizes (what the server sends about a call comes before its answer).
type frameSizes struct {
	watching  atomic.Bool
	mu        sync.Mutex
	req, resp int
}

// watchFrameSizes starts watching srv's wire. The observer stays on the
// tap, which cannot drop one; once sizes was called it only loads a flag.
func watchFrameSizes(srv *connect.Conn) *frameSizes {
	fs := &frameSizes{}
	fs.watching.Store(true)
	srv.Observe(func(r wire.Record) {
		if !fs.watching.Load() || r.Kind != wire.KindFrame {
			return
		}
		size := max(r.Size, len(r.Data)) // a frame read has only Data
		fs.mu.Lock()
		defer fs.mu.Unlock()
		switch {
		case r.Dir == wire.Out && fs.req == 0:
			fs.req = size
		case r.Dir == wire.In:
			fs.resp = size
		}
	})
	return fs
}

// sizes stops watching and returns what was seen.
func (fs *frameSizes) sizes() (req, resp int) {
	fs.watching.Store(false)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.req, fs.resp
}

// floorRun is the pipe floor's far end and the round trips measured so
// far.
type floorRun struct {
	peer               *floor.Peer
	reqSize, replySize int
	rounds             []time.Duration
	// ratios holds, for each slice, the calls' median over the floor's
	// median beside it.
	ratios []float64
	err    error
}

// startFloor starts the floor's far end (a child mcpoke in floor-echo
// mode) with the sizes of one call's request and response, and warms it.
func startFloor(ctx context.Context, reqSize, replySize, warmup int) (*floorRun, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p, err := floor.Start(exec.CommandContext(ctx, self, floorEchoCommand, "--size", strconv.Itoa(replySize)))
	if err != nil {
		return nil, err
	}
	fr := &floorRun{peer: p, reqSize: reqSize, replySize: replySize}
	if _, err := p.Measure(reqSize, warmup, 0, nil); err != nil {
		p.Close()
		return nil, fmt.Errorf("the pipe floor: %w", err)
	}
	return fr, nil
}

// measure makes as many round trips as calls made just before, and
// keeps the ratio of their medians.
func (fr *floorRun) measure(ctx context.Context, calls []time.Duration) {
	if fr.err != nil || len(calls) == 0 {
		return
	}
	rounds, err := fr.peer.Measure(fr.reqSize, 0, len(calls), func() bool { return ctx.Err() != nil })
	fr.rounds = append(fr.rounds, rounds...)
	if err != nil && ctx.Err() == nil {
		fr.err = err
	}
	if len(rounds) > 0 {
		if f := summarize(rounds).P50Ms; f > 0 {
			fr.ratios = append(fr.ratios, summarize(calls).P50Ms/f)
		}
	}
}

// p50Ratio is the median of the slices' ratios: the p50 against the floor
// measured beside it, which a machine that is busy at one moment and
// idle the next leaves alone where it moves the two p50s apart.
func (fr *floorRun) p50Ratio() float64 {
	if len(fr.ratios) == 0 {
		return 0
	}
	s := slices.Clone(fr.ratios)
	slices.Sort(s)
	return ratio(s[(len(s)-1)/2], 1)
}

func (fr *floorRun) close() { fr.peer.Close() }

func (fr *floorRun) stats() *floorStats {
	st := summarize(fr.rounds)
	fs := &floorStats{P50Ms: st.P50Ms, P90Ms: st.P90Ms, P99Ms: st.P99Ms, RequestBytes: fr.reqSize, ReplyBytes: fr.replySize}
	var sum time.Duration
	for _, r := range fr.rounds {
		sum += r
	}
	if sum > 0 {
		fs.CallsPerSec = float64(len(fr.rounds)) / sum.Seconds()
	}
	return fs
}

// floorSlice is how many calls, then as many floor round trips, are
// taken at a time, one after the other, so that a noisy neighbour weighs
// on both alike.
const floorSlice = 20

// measureCalls is runCalls of -n calls; with the floor, in slices
// alternating with as many floor round trips.
func measureCalls(ctx context.Context, s *session.Session, req benchRequest, f *benchFlags, fr *floorRun) ([]time.Duration, int, time.Duration) {
	if fr == nil {
		return runCalls(ctx, s, req, f.n, f.concurrency)
	}
	var rounds []time.Duration
	var errs int
	var wall time.Duration
	for done := 0; done < f.n && ctx.Err() == nil; {
		n := min(floorSlice, f.n-done)
		done += n
		r, e, w := runCalls(ctx, s, req, n, f.concurrency)
		rounds, errs, wall = append(rounds, r...), errs+e, wall+w
		fr.measure(ctx, r)
	}
	return rounds, errs, wall
}

// ratio is a/b rounded to 2 decimals, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(int(a/b*100+0.5)) / 100
}

func printFloor(w io.Writer, r *benchReport) {
	f := r.Floor
	if f == nil {
		return
	}
	fmt.Fprintf(w, "pipe floor  p50 %s  p90 %s  p99 %s  %.0f round trips/s  (raw %d/%d-byte lines between two processes)\n",
		human(f.P50Ms), human(f.P90Ms), human(f.P99Ms), f.CallsPerSec, f.RequestBytes, f.ReplyBytes)
	fmt.Fprintf(w, "vs floor    p50 %s = %.1f× this machine's pipe floor; p90 %.1f×, p99 %.1f×\n",
		human(r.P50Ms), r.P50VsFloor, ratio(r.P90Ms, f.P90Ms), ratio(r.P99Ms, f.P99Ms))
}
