package session

// State is where a request is in its life:
//
//	pending → completed | failed | timed_out | cancelling → cancelled
//
// cancelling means we asked the peer to stop and are watching what it does
// for a settle window; every other state but pending is final.
type State uint8

const (
	Pending State = iota
	Completed
	Failed
	TimedOut
	Cancelling
	Cancelled
)

var stateNames = [...]string{"pending", "completed", "failed", "timed_out", "cancelling", "cancelled"}

// String implements fmt.Stringer with the names used on screen and in JSON.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// MarshalText implements encoding.TextMarshaler.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Final reports whether s can no longer change.
func (s State) Final() bool { return s != Pending && s != Cancelling }

// InFlight reports whether the request may still be cancelled.
func (s State) InFlight() bool { return s == Pending }
