package ui

import "testing"

// Goldens of the resources, prompts and log panes on the built-in demo
// server.

func TestFlowResourcesPane(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, demoConn(t, clock), false)
	f.waitScreen("TOOLS 9", "2 completed")
	f.keys("2")
	f.golden("list", "RESOURCES 5", "demo://logo.png", "template demo://g", "enter read", "5 completed")
	f.keys("enter")
	f.golden("read-text", "[text] demo://readme (text/markdown)", "- demo://slow takes 5 seconds to read: cancel it.", "6 completed")
	f.keys("j", "j", "j", "enter")
	f.golden("read-blob", "[blob] demo://logo.png (image/png), 81 B", "7 completed")
}

func TestFlowPromptsPaneWithCompletion(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, demoConn(t, clock), false)
	f.waitScreen("TOOLS 9", "2 completed")
	f.keys("3")
	f.waitScreen("PROMPTS 2", "review")
	f.keys("enter")
	f.waitScreen("GET PROMPT review")
	f.typeText("x := 1")
	f.keys("tab")
	f.typeText("g")
	f.golden("completion", "↳ go", "ctrl+n/ctrl+p picks one of 1 suggestion")
	f.keys("ctrl+n", "enter")
	f.golden("prompt", "[user text] Please review this go code:", "[assistant text] Here is what I see")
}

func TestFlowLogPane(t *testing.T) {
	clock := newFakeClock()
	f := startFlow(t, clock, demoConn(t, clock), false)
	f.waitScreen("TOOLS 9", "2 completed")
	f.keys("V")
	f.waitScreen("log level (debug")
	f.keys("enter")
	f.waitScreen("the server now logs at debug and above")
	f.keys("2")
	f.waitScreen("RESOURCES 5")
	f.keys("enter", "l")
	f.golden("log", "SERVER LOG 2 messages · level debug", "notice  logging log level set to debug", "info    resources read demo://readme")
}
