package cli

import (
	"testing"
	"time"
)

func TestParseCancelPoint(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  cancelPoint
		words string
	}{
		{"50ms..500ms", cancelPoint{from: 50 * time.Millisecond, to: 500 * time.Millisecond}, "at 50–500 ms"},
		{"50..500ms", cancelPoint{from: 50 * time.Millisecond, to: 500 * time.Millisecond}, "at 50–500 ms"},
		{"0..1s", cancelPoint{to: time.Second}, "at 0–1000 ms"},
		{"1s..20s", cancelPoint{from: time.Second, to: 20 * time.Second}, "at 1.00s–20.00s"},
		{"100ms", cancelPoint{from: 100 * time.Millisecond, to: 100 * time.Millisecond}, "at 100ms"},
		{"before-first-progress", cancelPoint{kind: cancelBeforeFirstProgress}, "before their first progress"},
		{"mid-progress", cancelPoint{kind: cancelMidProgress}, "mid-progress"},
	} {
		got, err := parseCancelPoint(c.in)
		if err != nil || got != c.want || got.words() != c.words {
			t.Errorf("parseCancelPoint(%q) = %+v %q, %v; want %+v %q", c.in, got, got.words(), err, c.want, c.words)
		}
	}
	for _, bad := range []string{"", "500ms..50ms", "x..1s", "-1s..1s", "fast", "1s.."} {
		if p, err := parseCancelPoint(bad); err == nil {
			t.Errorf("parseCancelPoint(%q) = %+v, want an error", bad, p)
		}
	}
}

func TestParseCancelRate(t *testing.T) {
	for in, want := range map[string]float64{"0.3": 0.3, "30%": 0.3, "1": 1, "0": 0, "100%": 1} {
		if got, err := parseCancelRate(in); err != nil || got != want {
			t.Errorf("parseCancelRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1.5", "-0.1", "NaN", "x%", "150%"} {
		if _, err := parseCancelRate(bad); err == nil {
			t.Errorf("parseCancelRate(%q) accepted", bad)
		}
	}
}
