package ui

import (
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
)

// askFeed carries what one connection's client side hands the UI: the
// server's questions (*mcp.Question) and what happened besides
// (mcp.ElicitationComplete, mcp.TaskChanged). Its Ask and Event never
// block the session: they only append.
type askFeed struct {
	mu     sync.Mutex
	items  []any
	notify chan struct{} // has something; capacity 1
	stop   chan struct{}
	once   sync.Once
}

func newAskFeed() *askFeed {
	return &askFeed{notify: make(chan struct{}, 1), stop: make(chan struct{})}
}

// ask is the client side's mcp.Asker.
func (f *askFeed) ask(q *mcp.Question) { f.add(q) }

// event is the client side's Event.
func (f *askFeed) event(e any) { f.add(e) }

func (f *askFeed) add(item any) {
	f.mu.Lock()
	f.items = append(f.items, item)
	f.mu.Unlock()
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

// Stop ends delivery; Next returns nil from now on.
func (f *askFeed) Stop() { f.once.Do(func() { close(f.stop) }) }

// Next blocks until there is something, and returns all of it.
func (f *askFeed) Next() []any {
	for {
		f.mu.Lock()
		items := f.items
		f.items = nil
		f.mu.Unlock()
		if len(items) > 0 {
			return items
		}
		select {
		case <-f.notify:
		case <-f.stop:
			return nil
		}
	}
}

// askedMsg: the client side handed the UI questions or events.
type askedMsg struct {
	forGen
	items []any
}

// withdrawnMsg: a question may no longer be answered (the server
// cancelled it or its task, or the session ended).
type withdrawnMsg struct {
	forGen
	seq uint64
	why string
}

// answeredMsg: an answer was given to the question of request seq; err
// says why it was not taken (a *mcp.TooLateError: not sent).
type answeredMsg struct {
	forGen
	seq  uint64
	what string
	err  error
}

// rootAddedMsg: a root was added (or was there already).
type rootAddedMsg struct {
	forGen
	root    mcp.Root
	changed bool
	err     error
}

// nextAskCmd waits for the feed's next items.
func nextAskCmd(gen int, f *askFeed) tea.Cmd {
	if f == nil {
		return nil
	}
	return func() tea.Msg {
		items := f.Next()
		if items == nil {
			return nil
		}
		return askedMsg{forGen: forGen{gen}, items: items}
	}
}

// watchQuestionCmd reports when q is withdrawn. An answered question is
// withdrawn too, once its request ends; the model ignores that.
func watchQuestionCmd(gen int, q *mcp.Question) tea.Cmd {
	return func() tea.Msg {
		<-q.Withdrawn()
		return withdrawnMsg{forGen: forGen{gen}, seq: q.Ref.Seq, why: q.Why()}
	}
}

// answerCmd gives q its answer, outside Update.
func answerCmd(gen int, q *mcp.Question, what string, result []byte, err error) tea.Cmd {
	return func() tea.Msg {
		return answeredMsg{forGen: forGen{gen}, seq: q.Ref.Seq, what: what, err: q.Answer(result, err)}
	}
}
