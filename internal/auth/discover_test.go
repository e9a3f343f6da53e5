package auth

import "testing"

func TestResourceCovers(t *testing.T) {
	for _, tc := range []struct {
		prm, server string
		want        bool
	}{
		{"https://a.example/mcp", "https://a.example/mcp", true},
		{"https://a.example", "https://a.example/mcp", true},
		{"https://a.example/", "https://a.example/mcp", true},
		{"https://A.example/mcp/", "https://a.example/mcp", true},
		{"https://a.example/m", "https://a.example/mcp", false},
		{"https://a.example/mcp/x", "https://a.example/mcp", false},
		{"https://evil.example/mcp", "https://a.example/mcp", false},
		{"http://a.example/mcp", "https://a.example/mcp", false},
		{"https://a.example/mcp#f", "https://a.example/mcp", false},
	} {
		if got := resourceCovers(tc.prm, tc.server); got != tc.want {
			t.Errorf("resourceCovers(%q, %q) = %v; want %v", tc.prm, tc.server, got, tc.want)
		}
	}
}

func TestCheckMetadataURL(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://as.example/x": true, "http://127.0.0.1:9/x": true, "http://localhost/x": true,
		"http://as.example/x": false, "javascript:alert(1)": false, "file:///etc/passwd": false,
	} {
		if err := checkMetadataURL(u); (err == nil) != ok {
			t.Errorf("checkMetadataURL(%q) = %v; want ok=%v", u, err, ok)
		}
	}
}
