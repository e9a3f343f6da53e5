package diagram

import "fmt"

// Human formats milliseconds as call's report does: 0.052ms, 12ms, 1.50s.
func Human(ms float64) string {
	neg := ""
	if ms < 0 {
		neg, ms = "-", -ms
	}
	switch {
	case ms < 10:
		return fmt.Sprintf("%s%.3gms", neg, ms)
	case ms < 999.5: // what rounds to 1000ms is 1.00s
		return fmt.Sprintf("%s%.0fms", neg, ms)
	}
	return fmt.Sprintf("%s%.2fs", neg, ms/1000)
}

// offset is a time after the request: +1.50s.
func offset(ms float64) string {
	if ms < 0 {
		return Human(ms)
	}
	return "+" + Human(ms)
}

// when is an arrow's time, or a run's range.
func when(a Arrow) string {
	if a.Count > 1 && a.Until != a.At {
		return offset(a.At) + " … " + offset(a.Until)
	}
	return offset(a.At)
}
