package cli

import (
	"os"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpoke/mcpoke/internal/connect"
	"github.com/mcpoke/mcpoke/internal/mcp"
)

// clientSideFlags are how a command answers the server's own requests:
// with no one there, mcpoke declares roots, sampling and elicitation only
// when a flag says how to answer them.
type clientSideFlags struct {
	roots  []string
	sample string
	elicit string
	// answerAfter delays every answer: a server that gives up sooner
	// cancels its request, and the answer is then not sent.
	answerAfter time.Duration
}

// addClientSideFlags adds --root, --sample and --elicit to fl.
func addClientSideFlags(fl *pflag.FlagSet, f *clientSideFlags) {
	fl.StringArrayVar(&f.roots, "root", nil, "offer DIR to the server as a root (repeatable; declares the roots capability; a config entry's \"roots\" count too)")
	fl.StringVar(&f.sample, "sample", "", "answer the server's sampling/createMessage: decline, or text:STRING (declares sampling; the UI asks a person)")
	fl.StringVar(&f.elicit, "elicit", "", "answer the server's elicitation/create: decline, cancel, accept-defaults or accept:JSON (declares elicitation, form and url; the UI asks a person)")
	fl.DurationVar(&f.answerAfter, "answer-after", 0, "answer --sample and --elicit questions only after DUR, as a slow person would (a server that gives up first cancels, and no answer is sent)")
}

// policy reads --sample and --elicit; an unusable value is bad usage.
func (f *clientSideFlags) policy() (mcp.Policy, error) {
	var p mcp.Policy
	var err error
	if f.sample != "" {
		if p.Sample, err = mcp.ParseSamplePolicy(f.sample); err != nil {
			return p, usageError("%v", err)
		}
	}
	if f.elicit != "" {
		if p.Elicit, err = mcp.ParseElicitPolicy(f.elicit); err != nil {
			return p, usageError("%v", err)
		}
	}
	return p, nil
}

// rootList is --root's directories and the config entry's roots. A
// directory that does not exist is bad usage: the spec asks clients to
// check roots before exposing them.
func (f *clientSideFlags) rootList(spec connect.Spec) (*mcp.RootList, bool, error) {
	wd, _ := os.Getwd()
	l := mcp.NewRootList()
	given := append(append([]string(nil), spec.Roots...), f.roots...)
	for _, s := range given {
		r, err := mcp.ParseRoot(s, wd)
		if err != nil {
			return nil, false, usageError("%v", err)
		}
		l.Add(r)
	}
	return l, len(given) > 0, nil
}

// headlessClientSide is the client side of a command with no one there:
// it declares and answers only what the flags say, and logs each
// question it answers for the report.
func headlessClientSide(f *clientSideFlags, spec connect.Spec, protocol string, followTasks bool) (*mcp.ClientSide, *askLog, error) {
	p, err := f.policy()
	if err != nil {
		return nil, nil, err
	}
	roots, haveRoots, err := f.rootList(spec)
	if err != nil {
		return nil, nil, err
	}
	features := p.Features().ForVersion(protocol)
	features.Roots = haveRoots
	features.FollowTasks = followTasks
	log := &askLog{}
	delay := f.answerAfter
	answer := func(q *mcp.Question) {
		if err := p.Answer(q); err != nil {
			log.refused(q, err)
		}
	}
	cs := mcp.NewClientSide(mcp.ClientSideOptions{Features: features, Roots: roots,
		Ask: func(q *mcp.Question) {
			how := p.Describe(q)
			if delay > 0 {
				how += " after " + delay.String() + " (--answer-after)"
				time.AfterFunc(delay, func() { answer(q) })
			}
			log.add(q, how)
			if delay <= 0 {
				answer(q)
			}
		},
		Event: log.event,
	})
	return cs, log, nil
}

// askLog is what a headless command's client side did, for the report.
type askLog struct {
	mu     sync.Mutex
	asked  []askedQuestion
	events []any
}

// askedQuestion is one question and how the policy answered it.
type askedQuestion struct {
	Q      *mcp.Question
	Answer string
	At     time.Time
	// Refused says why the answer was not taken: the server withdrew
	// the question first.
	Refused string
}

// refused records why q did not take its answer.
func (l *askLog) refused(q *mcp.Question, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := range l.asked {
		if l.asked[i].Q == q {
			l.asked[i].Refused = err.Error()
		}
	}
}

func (l *askLog) add(q *mcp.Question, how string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked = append(l.asked, askedQuestion{Q: q, Answer: how, At: q.Asked})
}

func (l *askLog) event(e any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// tuiClientSide is what the UI starts with: the policy of --sample and
// --elicit, which answers without asking, and the roots of --root and
// the config entry. The UI declares everything: a person is there.
func tuiClientSide(f *clientSideFlags, spec connect.Spec) (mcp.Policy, []mcp.Root, error) {
	p, err := f.policy()
	if err != nil {
		return p, nil, err
	}
	roots, _, err := f.rootList(spec)
	if err != nil {
		return p, nil, err
	}
	return p, roots.Roots(), nil
}
