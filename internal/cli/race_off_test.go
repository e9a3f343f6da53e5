//go:build !race

package cli

// raceEnabled: the race detector multiplies memory by five to ten, so
// peak-RSS bounds are not measured under it.
const raceEnabled = false
