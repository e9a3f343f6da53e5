package ui

import "testing"

// With the timeline in the requests' place and the tools in sight, tab
// and shift+tab go between the tools and the timeline: the pane below
// the requests is hidden, so the focus never lands on it.
func TestTabSkipsThePaneTheTimelineHides(t *testing.T) {
	d := demoModel(t, false, 140, 35)
	d.key("d")
	d.waitFor("the timeline", func() bool { return d.m.timelineOn })
	if d.m.layout.timelineWide || d.m.focus != focusRequests {
		t.Fatalf("at 140 columns the timeline hides the tools (%v) or does not take the focus (%v)", d.m.layout.timelineWide, d.m.focus)
	}
	for i, step := range []struct {
		key  string
		want focusArea
	}{{"tab", focusTools}, {"tab", focusRequests}, {"tab", focusTools}, {"shift+tab", focusRequests}, {"shift+tab", focusTools}} {
		d.key(step.key)
		if d.m.focus != step.want {
			t.Fatalf("key %d (%s): focus on %v, want %v", i+1, step.key, d.m.focus, step.want)
		}
	}
}
