package diagram

import "testing"

// What rounds to 1000ms is written 1.00s, never +1000ms.
func TestHumanRoundsUpToSeconds(t *testing.T) {
	for ms, want := range map[float64]string{3.5: "3.5ms", 999.4: "999ms", 999.6: "1.00s", 1000: "1.00s", -999.7: "-1.00s"} {
		if got := Human(ms); got != want {
			t.Errorf("Human(%v) = %s, want %s", ms, got, want)
		}
	}
	if got := offset(999.9); got != "+1.00s" {
		t.Errorf("offset(999.9) = %s, want +1.00s", got)
	}
}
