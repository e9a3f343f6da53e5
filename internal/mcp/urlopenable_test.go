package mcp

import "testing"

func TestURLOpenable(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://example.com/a": true, "HTTPS://example.com": true, "http://127.0.0.1:8080/cb": true,
		"http://localhost/x": true, "http://[::1]/x": true,
		"http://example.com/a": false, "javascript:alert(1)": false, "javascript://x/%0aalert(1)": false,
		"file:///etc/passwd": false, "data:text/html,<script>alert(1)</script>": false, "vscode://x": false,
		"https:///no-host": false, "http://127.0.0.1.evil.example/": false,
	} {
		if err := URLOpenable(u); (err == nil) != ok {
			t.Errorf("URLOpenable(%q) = %v; want openable %v", u, err, ok)
		}
	}
}

// A url elicitation with any scheme is read (to be shown with a warning);
// --elicit accept accepts it without opening and says so.
func TestURLElicitationOtherSchemeWarned(t *testing.T) {
	r, err := ParseElicitRequest([]byte(`{"mode":"url","message":"m","url":"javascript:alert(1)","elicitationId":"e"}`), ClientFeatures{ElicitURL: true})
	if err != nil {
		t.Fatalf("ReadElicit: %v; want the request read, to be shown with a warning", err)
	}
	_, w := URLWarnings(r.URL)
	if len(w) == 0 {
		t.Fatal("no warning for a javascript: URL")
	}
	p := Policy{Elicit: &ElicitPolicy{Action: ElicitAccept}}
	if got := p.Describe(&Question{Elicit: &r}); got != `accept, without opening the URL (--elicit); warning: scheme "javascript"; mcpoke never opens it (only https, or http to this machine)` {
		t.Errorf("policy says %q", got)
	}
}
