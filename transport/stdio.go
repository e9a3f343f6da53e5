package transport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
)

// StdioOptions says which server to start and how to talk to it.
type StdioOptions struct {
	Command string
	Args    []string
	// Env holds KEY=VALUE pairs added to mcpoke's own environment; a key
	// given here overrides the inherited one.
	Env []string
	Dir string
	// MaxFrameSize bounds one inbound line; 0 means DefaultMaxFrameSize.
	MaxFrameSize int
	// CloseGrace is how long Close waits after closing stdin, and again
	// after SIGTERM, before escalating; 0 means DefaultCloseGrace.
	CloseGrace time.Duration
	// StderrLines is how many stderr lines are kept for StderrTail; 0
	// means DefaultStderrLines.
	StderrLines int
	// Raw, when set, takes the server's stdout and stderr as raw bytes
	// instead of Recv (see RawOutput).
	Raw *RawOutput
}

// Defaults for zero StdioOptions fields.
const (
	DefaultCloseGrace  = 2 * time.Second
	DefaultStderrLines = 200
)

const (
	// maxStderrLine cuts runaway stderr lines (minified stack traces).
	maxStderrLine = 4 << 10
	// recvBuffer is how far the readers may run ahead of Recv before the
	// server blocks on its pipes: backpressure instead of memory growth.
	recvBuffer = 64
	// exitStderrLines is how many stderr lines an ExitError carries.
	exitStderrLines = 10
	// pipeIdleGrace bounds the wait for pipes that someone outside the
	// server's process group still holds open after it was killed.
	pipeIdleGrace = 100 * time.Millisecond
	// sendBufferKeep is the largest send buffer kept between frames.
	sendBufferKeep = 1 << 20
	// outputClosedGrace is how long a closed stdout waits for the process
	// to exit: an exiting server is reported with its status and stderr,
	// one that lives on as ErrOutputClosed.
	outputClosedGrace = 250 * time.Millisecond
	// familySweeps bounds the rounds of the final kill: a round finds the
	// processes that were forked or re-parented during the one before.
	familySweeps     = 8
	familySweepPause = 5 * time.Millisecond
	// familyPoll is how often a server's leftovers are looked for while
	// they have a grace to go after SIGTERM.
	familyPoll = 10 * time.Millisecond
)

// ErrOutputClosed is returned by Recv when the server closed its stdout
// but did not exit: no response can come any more.
var ErrOutputClosed = errors.New("server closed its output")

// serverTagKey is the environment key that marks the servers of this
// mcpoke, and through inheritance their descendants, so that Close finds
// those that left the server's session. The key names this mcpoke, so
// that an mcpoke run as a server keeps the tag of the one that started it.
var serverTagKey = fmt.Sprintf("MCPOKE_SERVER_TAG_%d", os.Getpid())

// serverSeq numbers the servers of this mcpoke for their tags.
var serverSeq atomic.Int64

// item is what the readers hand to Recv: a Message, or the error that
// ends the stream while the server still runs.
type item struct {
	m   Message
	err error
}

// Stdio is a Conn to a server process speaking newline-delimited JSON-RPC
// on its stdin and stdout. Its stderr lines are kept for StderrTail and
// also delivered through Recv as wire.KindStderr. It is a DirectReceiver:
// its stdout and stderr can be handed to a receiver on the goroutines that
// read them.
type Stdio struct {
	opts           StdioOptions
	cmd            *exec.Cmd
	pid            int
	stdin          *os.File
	stdout, stderr *os.File // our read ends
	tail           *ring
	msgs           chan item
	// routeMu guards direct and routed: whether the output goes to a
	// direct receiver (see ReceiveDirect) is decided once, at the first
	// item of stdout or stderr, for both.
	routeMu sync.Mutex
	direct  func(Message)
	routed  bool
	// tag is the KEY=VALUE entry in the server's environment; start is
	// when it started, in the units of familyOf.
	tag   string
	start uint64
	// ended holds the error that ended Recv's stream before the exit.
	ended atomic.Pointer[error]

	sendMu  sync.Mutex
	sendBuf []byte

	closeOnce sync.Once
	closed    chan struct{} // Close was called
	exited    chan struct{} // the leader exited; it may not be reaped yet

	readersLeft atomic.Int32
	readersDone chan struct{}
	draining    atomic.Bool // the server is gone; see pipeReader

	// reapMu orders group signals before the reap, after which the pgid
	// could belong to someone else.
	reapMu sync.Mutex
	reaped bool
	// forced is set by KillAll: no more graces.
	forced atomic.Bool
	// adopted holds the members of the family that were mcpoke's own
	// children when signalled: they are reaped here.
	adopted map[int]bool

	done    chan struct{} // reaped, readers finished, msgs closed
	exitErr *ExitError
}

var _ interface {
	Conn
	StderrTail
	DirectReceiver
} = (*Stdio)(nil)

// StartStdio starts the server in a session of its own, without a
// controlling terminal, its stdin, stdout and stderr on pipes. Its
// environment gets an entry MCPOKE_SERVER_TAG_<mcpoke pid>=<n> by which
// Close finds its descendants. On Linux the first call makes mcpoke a child
// subreaper (see the package doc). Call Close to stop the server; see
// CloseAll and KillAll for stopping servers when mcpoke is signalled.
func StartStdio(opts StdioOptions) (*Stdio, error) {
	if opts.MaxFrameSize <= 0 {
		opts.MaxFrameSize = DefaultMaxFrameSize
	}
	if opts.CloseGrace <= 0 {
		opts.CloseGrace = DefaultCloseGrace
	}
	if opts.StderrLines <= 0 {
		opts.StderrLines = DefaultStderrLines
	}
	if opts.Dir != "" {
		// Checked here because with SysProcAttr set, a bad Dir would be
		// reported as if the command were missing.
		if _, err := os.Stat(opts.Dir); err != nil {
			if u := errors.Unwrap(err); u != nil {
				err = u
			}
			return nil, fmt.Errorf("start %q: chdir %s: %w", opts.Command, opts.Dir, err)
		}
	}
	becomeSubreaper()
	tag := fmt.Sprintf("%s=%d", serverTagKey, serverSeq.Add(1))
	cmd := exec.Command(opts.Command, opts.Args...)
	cmd.Env = append(append(os.Environ(), opts.Env...), tag)
	cmd.Dir = opts.Dir
	cmd.SysProcAttr = sysProcAttr()

	// Our own pipes rather than cmd.StdoutPipe: exec's Wait closes those,
	// and we reap before the readers are done.
	var opened []*os.File
	closeOpened := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			opened = append(opened, r, w)
		}
		return r, w, err
	}
	stdinR, stdinW, err1 := pipe()
	stdoutR, stdoutW, err2 := pipe()
	stderrR, stderrW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		closeOpened()
		return nil, fmt.Errorf("start %q: %w", opts.Command, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW

	// Start under the registry lock so CloseAll and KillAll cannot miss a
	// server that is being born while mcpoke is told to quit.
	live.Lock()
	if live.quitting {
		live.Unlock()
		closeOpened()
		return nil, ErrQuitting
	}
	if err := cmd.Start(); err != nil {
		live.Unlock()
		closeOpened()
		return nil, startError(opts.Command, err)
	}
	// The child has its own copies; ours would hide its EOFs.
	stdinR.Close()
	stdoutW.Close()
	stderrW.Close()
	s := &Stdio{
		opts:        opts,
		cmd:         cmd,
		pid:         cmd.Process.Pid,
		stdin:       stdinW,
		stdout:      stdoutR,
		stderr:      stderrR,
		tail:        newRing(opts.StderrLines),
		msgs:        make(chan item, recvBuffer),
		tag:         tag,
		start:       startTime(cmd.Process.Pid),
		adopted:     map[int]bool{},
		closed:      make(chan struct{}),
		exited:      make(chan struct{}),
		readersDone: make(chan struct{}),
		done:        make(chan struct{}),
	}
	live.m[s] = struct{}{}
	live.Unlock()

	s.readersLeft.Store(2)
	go s.readStdout()
	go s.readStderr()
	go s.wait()
	return s, nil
}

// startError names the command and drops exec's own prefixes, giving e.g.
// `start "foo": executable file not found in $PATH`.
func startError(command string, err error) error {
	var ee *exec.Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &ee):
		err = ee.Err
	case errors.As(err, &pe) && pe.Op == "fork/exec":
		err = pe.Err
	}
	return fmt.Errorf("start %q: %w", command, err)
}

// Pid is the server's process id, which is also its process group id and
// its session id.
func (s *Stdio) Pid() int { return s.pid }

// StderrTail returns up to n of the last stderr lines, oldest first.
func (s *Stdio) StderrTail(n int) []string { return s.tail.last(n) }

// Send implements Conn. Frames are written whole, one write per frame, so
// concurrent senders never interleave.
func (s *Stdio) Send(frame []byte) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if err := s.sendGate(); err != nil {
		return err
	}
	s.sendBuf = append(append(s.sendBuf[:0], frame...), '\n')
	_, err := s.stdin.Write(s.sendBuf)
	if cap(s.sendBuf) > sendBufferKeep {
		s.sendBuf = nil
	}
	if err == nil {
		return nil
	}
	if gate := s.sendGate(); gate != nil {
		return gate
	}
	if errors.Is(err, syscall.EPIPE) {
		return errors.New("transport: send: server closed its stdin")
	}
	return fmt.Errorf("transport: send: %w", err)
}

func (s *Stdio) sendGate() error {
	if s.isClosed() {
		return ErrClosed
	}
	select {
	case <-s.exited:
		return ErrServerExited
	default:
		return nil
	}
}

// Recv implements Conn. When the server has exited it returns *ExitError,
// but only after every line it wrote to stdout and stderr was delivered
// (to the direct receiver, if ReceiveDirect installed one, and returned
// from it). When the server closes its stdout but lives on, Recv
// returns ErrOutputClosed, after every frame it wrote.
func (s *Stdio) Recv() (Message, error) {
	if s.isClosed() {
		return Message{}, ErrClosed
	}
	if err := s.ended.Load(); err != nil {
		return Message{}, *err
	}
	select {
	case it, ok := <-s.msgs:
		switch {
		case ok && it.err == nil:
			return it.m, nil
		case s.isClosed():
			return Message{}, ErrClosed
		case ok:
			s.ended.Store(&it.err)
			return Message{}, it.err
		}
		return Message{}, s.exitErr
	case <-s.closed:
		return Message{}, ErrClosed
	}
}

// Close implements Conn. It closes the server's stdin, which is how MCP
// asks a stdio server to stop; after CloseGrace it sends SIGTERM to the
// server's family (its process group, its session and its detached
// descendants), and after another CloseGrace SIGKILL. Whatever of the
// family outlives the server itself is killed at once. Close returns once
// the server is reaped and every goroutine of this Stdio has ended.
// KillAll cuts the graces short.
func (s *Stdio) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.stdin.Close()
		if !s.waitExit(s.opts.CloseGrace) {
			s.signal(syscall.SIGTERM)
			if !s.waitExit(s.opts.CloseGrace) {
				s.signal(syscall.SIGKILL)
			}
		}
		// The waiter kills what is left of the group and reaps the leader.
		<-s.done
		// Registered until now, so that KillAll can reach a server whose
		// polite Close is still waiting.
		unregister(s)
	})
	return nil
}

func (s *Stdio) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.exited:
		return true
	case <-t.C:
		return false
	}
}

// signal signals the server's group unless the leader was already reaped,
// and the rest of its family. The leader is also signalled directly, in
// case it left its group. It reports whether any of the family was found
// alive besides the leader.
func (s *Stdio) signal(sig syscall.Signal) bool {
	s.reapMu.Lock()
	defer s.reapMu.Unlock()
	if !s.reaped {
		signalGroup(s.pid, sig)
		s.cmd.Process.Signal(sig)
	}
	self := os.Getpid()
	fam := familyOf(s.pid, s.start, s.tag)
	for _, p := range fam {
		if p.ppid == self {
			s.adopted[p.pid] = true
		}
		signalProc(p.pid, sig)
	}
	return len(fam) > 0
}

// deliver hands m to Recv, blocking while Recv is behind. It reports false
// once Close was called: nobody will read any more.
func (s *Stdio) deliver(m Message) bool {
	return s.put(item{m: m})
}

func (s *Stdio) put(it item) bool {
	select {
	case s.msgs <- it:
		return true
	case <-s.closed:
		return false
	}
}

func (s *Stdio) readerDone() {
	if s.readersLeft.Add(-1) == 0 {
		close(s.readersDone)
	}
}

func (s *Stdio) readStdout() {
	if s.opts.Raw != nil {
		r := pipeReader{s.stdout, s}
		s.readRaw(&r, s.opts.Raw.Stdout, s.outputClosed)
		return
	}
	defer s.readerDone()
	r := pipeReader{s.stdout, s}
	fr := newFrameReader(r, s.opts.MaxFrameSize)
	m, err := fr.next()
	if err == nil {
		if f := s.route(); f != nil {
			(&directReader{s: s, next: fr.next, atEOF: s.outputClosed, r: r, f: f}).run(m)
			return
		}
	}
	for ; ; m, err = fr.next() {
		if err == io.EOF {
			s.outputClosed()
			return
		}
		if err != nil {
			return
		}
		if !s.deliver(m) {
			break
		}
	}
	// Keep draining after Close: a server blocked on a full stdout could
	// not notice stdin EOF and exit politely.
	io.Copy(io.Discard, r)
}

func (s *Stdio) readStderr() {
	if s.opts.Raw != nil {
		r := pipeReader{s.stderr, s}
		s.readRaw(&r, s.opts.Raw.Stderr, nil)
		return
	}
	defer s.readerDone()
	r := pipeReader{s.stderr, s}
	lr := lineReader{br: bufio.NewReaderSize(r, maxStderrLine), keep: maxStderrLine, cut: maxStderrLine}
	next := func() (Message, error) {
		line, _, err := lr.next()
		if err != nil {
			return Message{}, err
		}
		s.tail.add(string(line))
		return Message{Kind: wire.KindStderr, Data: line}, nil
	}
	m, err := next()
	if err == nil {
		if f := s.route(); f != nil {
			(&directReader{s: s, next: next, r: r, f: f}).run(m)
			return
		}
	}
	for ; err == nil; m, err = next() {
		if !s.deliver(m) {
			io.Copy(io.Discard, r)
			return
		}
	}
}

// outputClosed ends Recv's stream with ErrOutputClosed when the server
// closed its stdout and does not exit: no response can come, and pending
// requests must not wait for a process that may never end.
func (s *Stdio) outputClosed() {
	t := time.NewTimer(outputClosedGrace)
	defer t.Stop()
	select {
	case <-s.exited: // wait reports the exit, with its status
	case <-s.closed:
	case <-t.C:
		s.put(item{err: ErrOutputClosed})
	}
}

// wait follows the server from exit to reaping, then ends Recv's stream.
func (s *Stdio) wait() {
	held := waitExited(s.pid)
	if !held {
		s.cmd.Wait()
		s.reapMu.Lock()
		s.reaped = true
		s.reapMu.Unlock()
	}
	close(s.exited)

	// Output normally ends at once; a child of the server that still
	// holds the pipes gets a grace to finish, unless we are closing.
	t := time.NewTimer(s.opts.CloseGrace)
	closed := s.closed
	if s.opts.Raw != nil {
		closed = nil // a relay passes on the last output even when closing
	}
	select {
	case <-s.readersDone:
	case <-closed:
	case <-t.C:
	}
	t.Stop()
	// End whatever the server left in its group and the rest of its
	// family. With the leader held as a zombie its pgid is still ours;
	// where it cannot be held (not Linux) this is best effort, with a
	// tiny window for pid reuse.
	s.endFamily()
	// A process outside the group may still hold the pipes: read what is
	// in them, then stop once they stay idle.
	s.draining.Store(true)
	for _, f := range []*os.File{s.stdout, s.stderr} {
		if !s.keepsOutput() || f.SetReadDeadline(time.Now().Add(pipeIdleGrace)) != nil {
			f.Close()
		}
	}
	<-s.readersDone

	if held {
		s.reapMu.Lock()
		s.cmd.Wait()
		s.reaped = true
		s.reapMu.Unlock()
	}
	s.reapMu.Lock()
	reapAdopted(s.adopted)
	s.reapMu.Unlock()
	s.stdout.Close()
	s.stderr.Close()
	s.exitErr = newExitError(s.cmd.ProcessState, s.tail.last(exitStderrLines))
	close(s.msgs)
	close(s.done)
}

// endFamily ends what is left of the server's family once the server is
// gone: SIGTERM, up to CloseGrace for it to go (unless KillAll forces the
// end), then SIGKILL.
func (s *Stdio) endFamily() {
	if !s.forced.Load() {
		if !s.signal(syscall.SIGTERM) {
			// That round found none of the family alive, so none is left
			// to fork another: the usual end, without a second /proc scan
			// (each is a stat read per process on the machine).
			signalGroup(s.pid, syscall.SIGKILL)
			return
		}
		deadline := time.Now().Add(s.opts.CloseGrace)
		for len(familyOf(s.pid, s.start, s.tag)) > 0 && time.Now().Before(deadline) && !s.forced.Load() {
			time.Sleep(familyPoll)
		}
	}
	signalGroup(s.pid, syscall.SIGKILL)
	s.killFamily()
}

// killFamily kills the family, round after round, until a round finds
// none of it alive: killing a parent re-parents its children to mcpoke,
// and a process may fork while it is being killed.
func (s *Stdio) killFamily() {
	for range familySweeps {
		if !s.signal(syscall.SIGKILL) {
			return
		}
		// Give the dying a moment to go before the next round looks.
		time.Sleep(familySweepPause)
	}
}

// pipeReader reads one of the server's output pipes. Once the server is
// gone each read may idle only pipeIdleGrace, so a pipe held open by an
// escaped process cannot keep Recv from reporting the exit, while a slow
// Recv still gets everything that was written.
type pipeReader struct {
	f *os.File
	s *Stdio
}

func (r pipeReader) Read(p []byte) (int, error) {
	if r.s.draining.Load() {
		if !r.s.keepsOutput() {
			return 0, io.EOF // nobody wants the rest
		}
		r.f.SetReadDeadline(time.Now().Add(pipeIdleGrace))
	}
	return r.f.Read(p)
}

func (s *Stdio) isClosed() bool {
	return isShut(s.closed)
}

func newExitError(ps *os.ProcessState, stderr []string) *ExitError {
	e := &ExitError{Code: -1, Stderr: stderr}
	if ps != nil {
		e.Code, e.Signal = describeExit(ps)
	}
	return e
}
