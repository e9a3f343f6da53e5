package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// selectEntry moves the cursor of l to the entry id.
func (d *driver) selectEntry(l *entryList, id string) {
	d.t.Helper()
	if !l.list.SelectWhere(func(e entry) bool { return e.id == id }) {
		d.t.Fatalf("no entry %q", id)
	}
}

func TestResourcesPaneReadsTextAndBinaryAndSaves(t *testing.T) {
	d, _ := newFeatureModel(t, 120, 40)
	d.key("2")
	d.waitScreen("RESOURCES 4", "a.txt", "An image", "files", "template file:///{dir…")
	if d.m.focus != focusTools || d.m.left != leftResources {
		t.Fatalf("focus %v left %v", d.m.focus, d.m.left)
	}
	// Listed once: showing the pane again sends nothing more.
	d.key("1")
	d.key("2")
	d.settle()
	if n := d.m.store.Counts[session.Completed]; n != 4 { // initialize, tools, resources, templates
		t.Errorf("%d requests completed, want 4", n)
	}

	d.key("enter")
	d.waitScreen("resources/read file:///a.txt", "[text] file:///a.txt (text/plain)", "hello from file:///a.txt\\x1b[2J")

	d.selectEntry(d.m.resources, "file:///img.png")
	d.key("enter")
	d.waitScreen("[blob] file:///img.png (image/png), 3 B")
	d.waitFor("the read's record", func() bool { r := d.m.table.Selected(); return r != nil && r.Info != nil })

	// enter on the detail offers to save the contents.
	d.setFocusBottom()
	d.key("enter")
	d.waitScreen("save the contents of #")
	path := filepath.Join(t.TempDir(), "img.png")
	d.key("ctrl+u")
	d.typeText(path)
	d.key("enter")
	d.waitScreen("saved 3 B to")
	if b, err := os.ReadFile(path); err != nil || string(b) != "\x00\x01\x02" {
		t.Fatalf("saved %q %v", b, err)
	}
	// Never over a file.
	d.key("enter")
	d.key("ctrl+u")
	d.typeText(path)
	d.key("enter")
	d.waitScreen("not saved: the file exists")
}

func TestTemplateFilledFromTheForm(t *testing.T) {
	d, _ := newFeatureModel(t, 120, 40)
	d.key("2")
	d.waitScreen("RESOURCES 4")
	d.selectEntry(d.m.resources, "file:///{dir}/{name}")
	d.key("enter")
	d.waitScreen("READ TEMPLATE file:///{dir}/{name}", "dir*", "name*")
	d.typeText("my docs")
	d.key("tab")
	d.typeText("a/b")
	d.key("enter")
	// RFC 6570: simple expansion percent-encodes the space and the slash.
	d.waitScreen("resources/read file:///my%20docs/a%2Fb")
}

func TestSubscribeMarksUpdatesAndListChangedRefreshes(t *testing.T) {
	d, rs := newFeatureModel(t, 120, 40)
	d.key("s")
	d.waitScreen("select a resource in the resources list (2)")
	d.key("2")
	d.waitScreen("RESOURCES 4")
	d.selectEntry(d.m.resources, "live://clock")
	d.key("s")
	d.waitScreen("subscribed to live://clock", "subscribed live://clo…")
	if subs, _, _, _ := rs.snapshot(); !subs["live://clock"] {
		t.Fatalf("the server has no subscription: %v", subs)
	}
	rs.notify(mcp.ResourceUpdated, map[string]string{"uri": "live://clock"})
	rs.notify(mcp.ResourceUpdated, map[string]string{"uri": "live://clock"})
	d.waitScreen("updated ×2")
	// Reading it clears the mark.
	d.key("enter")
	d.waitFor("the mark cleared", func() bool { return d.m.resources.marks["live://clock"].updates == 0 })
	d.key("s")
	d.waitScreen("unsubscribed from live://clock")
	if subs, _, _, _ := rs.snapshot(); subs["live://clock"] {
		t.Fatal("still subscribed on the server")
	}

	rs.mu.Lock()
	rs.resources = append(rs.resources, map[string]any{"uri": "new://one", "name": "newcomer"})
	rs.mu.Unlock()
	rs.notify(mcp.ResourcesListChanged, nil)
	d.waitScreen("RESOURCES 5", "newcomer", "the server's resources changed: 5 resources now")
}

func TestCompletionDebouncedSupersededCancelledAndPicked(t *testing.T) {
	d, rs := newFeatureModel(t, 120, 40)
	rs.mu.Lock()
	rs.hold = true
	rs.mu.Unlock()
	d.key("3")
	d.waitScreen("PROMPTS 1", "greet")
	d.key("enter")
	d.waitScreen("GET PROMPT greet", "lang*")

	d.typeText("g")
	first := rs.nextCompletion(d)
	if first.Value != "g" {
		t.Fatalf("first completion for %q", first.Value)
	}
	d.waitScreen("completing…")
	d.typeText("o")
	second := rs.nextCompletion(d)
	if second.Value != "go" {
		t.Fatalf("second completion for %q", second.Value)
	}
	// The first was superseded while in flight: cancelled on the wire.
	d.waitFor("the first completion cancelled", func() bool {
		_, _, cancels, _ := rs.snapshot()
		return len(cancels) == 1 && string(cancels[0].RequestID) == first.ID.String() && cancels[0].Reason == "superseded by a newer completion"
	})
	second.reply <- []string{"go", "golang"}
	d.waitScreen("↳ go, golang", "ctrl+n/ctrl+p picks one of 2 suggestions")
	// Each completion is a request row.
	d.waitFor("both rows", func() bool {
		n := 0
		for _, r := range d.m.store.Rows {
			if r.Method == "completion/complete" {
				n++
			}
		}
		return n == 2
	})

	d.key("ctrl+n")
	d.key("ctrl+n")
	if v := d.m.editor.focusedValue().value; v != "golang" {
		t.Fatalf("field %q after two picks", v)
	}
	// Picking does not ask again.
	d.settle()
	d.key("enter")
	d.waitScreen("prompts/get greet")
	d.waitFor("the prompt got", func() bool { _, _, _, gets := rs.snapshot(); return len(gets) == 1 })
	if _, _, _, gets := rs.snapshot(); !strings.Contains(string(gets[0]), `"arguments":{"lang":"golang"}`) {
		t.Errorf("prompts/get params %s", gets[0])
	}
}

func TestLogPaneAndLevel(t *testing.T) {
	d, rs := newFeatureModel(t, 120, 40)
	d.key("l")
	d.waitScreen("SERVER LOG 0 messages", "no log messages")
	d.key("V")
	d.waitScreen("log level (debug, info")
	d.key("ctrl+u")
	d.typeText("loud")
	d.key("enter")
	d.waitScreen(`log level "loud": use one of`)
	d.key("ctrl+u")
	d.typeText("warning")
	d.key("enter")
	d.waitScreen("the server now logs at warning and above", "SERVER LOG 0 messages · level warning")
	if _, levels, _, _ := rs.snapshot(); strings.Join(levels, ",") != "warning" {
		t.Fatalf("levels %v", levels)
	}
	rs.notify(mcp.LogMessage, map[string]any{"level": "error", "logger": "db\x1b[31m", "data": map[string]string{"err": "down\u202e"}})
	rs.notify(mcp.LogMessage, map[string]any{"level": "loud", "data": "what"})
	d.waitScreen("SERVER LOG 2 messages", `error   db\x1b[31m {"err":"down\u202e"}`, "?", "what (unknown level)")
}

func TestPingShowsItsRoundTrip(t *testing.T) {
	d, _ := newFeatureModel(t, 120, 40)
	d.key("p")
	d.waitScreen("ping #3 answered: ", "round trip", "3    ping")
}

func TestFeatureKeysWithoutCapabilities(t *testing.T) {
	d, tc := newTestModel(t, 120, 40)
	d.key("2")
	d.waitScreen("the server offers no", "resources (it did not", "declare the capability)")
	d.key("3")
	d.waitScreen("the server offers no", "prompts (it did not")
	d.key("V")
	d.waitScreen("did not declare the logging capability")
	tc.barrier(t)
	if n := d.m.store.Len(); n != 2 { // initialize and tools/list only
		t.Errorf("%d requests sent", n)
	}
}

func TestShownListIsListedAgainAfterAReconnect(t *testing.T) {
	d, _ := newFeatureModel(t, 120, 40)
	d.key("2")
	d.waitScreen("RESOURCES 4")
	d.m.resources.SetEntries(nil, nil) // as a reconnect leaves it, listing nothing
	d.m.features.listed = [2]bool{}
	d.m.header.state = connReady
	d.send(initializedMsg{forGen: forGen{d.m.gen}, peer: d.m.conn.Session.Peer()})
	d.waitScreen("RESOURCES 4")
}

func TestPromptsListChangedRefreshesOnlyOnceListed(t *testing.T) {
	d, rs := newFeatureModel(t, 120, 40)
	// Never shown: nothing to refresh, nothing sent.
	rs.notify(mcp.PromptsListChanged, nil)
	d.settle()
	if d.m.features.listed[1] || d.m.store.Len() != 2 {
		t.Fatalf("listed %v, %d requests", d.m.features.listed, d.m.store.Len())
	}
	d.key("3")
	d.waitScreen("PROMPTS 1")
	rs.notify(mcp.PromptsListChanged, nil)
	d.waitScreen("the server's prompts changed: 1 prompt now")
}

// TestCompletionCancelIsNotDoneInUpdate: the cancel of a superseded
// completion is a POST over HTTP, so Update must not make it. With the
// cancel's frame held on its way out, Update returns at once having
// written nothing, and the command it returns makes the cancel.
func TestCompletionCancelIsNotDoneInUpdate(t *testing.T) {
	d, rs, hold := newFeatureModelHolding(t, 120, 40, func(frame []byte) bool {
		return strings.Contains(string(frame), "notifications/cancelled")
	})
	rs.mu.Lock()
	rs.hold = true
	rs.mu.Unlock()
	d.key("3")
	d.waitScreen("PROMPTS 1", "greet")
	d.key("enter")
	d.waitScreen("GET PROMPT greet", "lang*")
	d.typeText("g")
	first := rs.nextCompletion(d)
	d.waitFor("the first completion in flight", func() bool { return d.m.features.compInFlight != nil })

	// As if "o" had been typed and its debounce run out.
	d.m.features.compN++
	due := completionDueMsg{forGen: forGen{d.m.gen}, key: completionKey{field: "lang", value: "go", n: d.m.features.compN}}
	returned := make(chan tea.Cmd, 1)
	go func() {
		_, cmd := d.m.Update(due)
		returned <- cmd
	}()
	var cmd tea.Cmd
	select {
	case cmd = <-returned:
	case <-time.After(waitLimit):
		t.Fatal("Update blocked on the held cancel: it cancelled the superseded completion itself")
	}
	select {
	case <-hold.Held():
		t.Fatal("Update wrote the cancel itself")
	default:
	}
	d.exec(cmd)
	recvWithin(t, hold.Held(), "the returned command to write the cancel")
	if _, _, cancels, _ := rs.snapshot(); len(cancels) != 0 {
		t.Fatalf("the server saw %d cancels while the cancel was held", len(cancels))
	}
	hold.Release()
	second := rs.nextCompletion(d)
	if second.Value != "go" {
		t.Fatalf("second completion for %q", second.Value)
	}
	d.waitFor("the first completion cancelled", func() bool {
		_, _, cancels, _ := rs.snapshot()
		return len(cancels) == 1 && string(cancels[0].RequestID) == first.ID.String() && cancels[0].Reason == "superseded by a newer completion"
	})
	second.reply <- []string{"go"}
	d.waitScreen("↳ go")
}
