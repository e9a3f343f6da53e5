package proxy

import "testing"

func TestRedactCommandLine(t *testing.T) {
	got := RedactCommandLine([]string{"srv", "--api-key", "k1", "--token=t2", "--port", "8080", "-v", "https://user:pw@example.com/x?access_token=t3", "plain"})
	want := "srv --api-key [redacted] --token=[redacted] --port 8080 -v https://%5Bredacted%5D@example.com/x?access_token=%5Bredacted%5D plain"
	if got != want {
		t.Errorf("RedactCommandLine = %q\nwant %q", got, want)
	}
}
