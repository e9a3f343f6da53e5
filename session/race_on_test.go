//go:build race

package session

// raceEnabled: the race detector allocates on its own, so counts of
// allocations are held only without it.
const raceEnabled = true
