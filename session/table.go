package session

import (
	"cmp"
	"slices"
)

// requestTable is the session's record of requests, ours and the peer's.
// It is guarded by Session.mu; the Session moves rows between states
// (setState) and the table keeps them findable and bounded.
//
// Invariants:
//   - order holds every row kept, sorted by Seq (Seq only grows);
//   - counted and out hold exactly the outgoing rows of order but task
//     rows, each in one of them; a request leaves them only when trim
//     drops it from order;
//   - counted holds those whose id is a plain decimal integer greater
//     than every id before it in counted (our counting ids), in order,
//     and countedIDs their ids; out holds the rest, by id text;
//   - in holds the incoming rows whose handler has not answered yet;
//   - tasks holds the task rows of order, by task id (a task row shares
//     the id of the request that created it, so it is never in out);
//   - finished counts the rows of order in a final state;
//   - after a trim, exactly maxFinished finished rows remain, the newest.
type requestTable struct {
	// Our own ids count up (newID): a row is filed in counted, found by a
	// binary search of countedIDs, which costs a fraction of inserting
	// into a map of the thousands of rows kept (profiled at about a
	// third of a call's bookkeeping). Other outgoing ids go to out.
	counted     []*request
	countedIDs  []uint64
	out         map[string]*request // outgoing not counted, by id JSON text
	in          map[string]*request // incoming not yet answered, by id JSON text
	tasks       map[string]*request // task rows, by task id
	order       []*request          // every row kept, by Seq
	finished    int                 // rows of order in a final state
	nextSeq     uint64
	maxFinished int
}

func newRequestTable(maxFinished int) requestTable {
	return requestTable{
		out:         make(map[string]*request),
		in:          make(map[string]*request),
		tasks:       make(map[string]*request),
		maxFinished: maxFinished,
	}
}

// add gives r the next sequence number and files it.
func (t *requestTable) add(r *request) {
	t.nextSeq++
	r.info.Seq = t.nextSeq
	switch {
	case r.info.TaskID != "":
		t.tasks[r.info.TaskID] = r // it shares its creator's id
	case r.info.Incoming:
		t.in[r.info.ID.raw] = r
	default:
		if n, ok := countingID(r.info.ID.raw); ok && (len(t.countedIDs) == 0 || n > t.countedIDs[len(t.countedIDs)-1]) {
			t.counted = append(t.counted, r)
			t.countedIDs = append(t.countedIDs, n)
		} else {
			t.out[r.info.ID.raw] = r
		}
	}
	t.order = append(t.order, r)
}

// outgoing finds our request by its id's exact JSON text: "1" never
// finds request 1.
func (t *requestTable) outgoing(idText string) *request {
	if n, ok := countingID(idText); ok {
		if i, found := slices.BinarySearch(t.countedIDs, n); found {
			return t.counted[i]
		}
	}
	return t.out[idText]
}

// countingID reads idText as IntID writes a non-negative number: decimal
// digits without a leading zero. Any other text (1.0, "1", 01) is not
// one of these ids, and is looked up by its text.
func countingID(idText string) (uint64, bool) {
	if len(idText) == 0 || len(idText) > 19 || (idText[0] == '0' && len(idText) > 1) {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(idText); i++ {
		c := idText[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// incoming finds a peer's request whose handler has not answered yet.
func (t *requestTable) incoming(idText string) *request { return t.in[idText] }

// answered forgets a peer's request id once its handler answered: the
// peer may reuse the id from then on.
func (t *requestTable) answered(r *request) { delete(t.in, r.info.ID.raw) }

// find returns the row ref names, or nil when the table does not keep it.
func (t *requestTable) find(ref Ref) *request {
	i, ok := slices.BinarySearchFunc(t.order, ref.Seq, func(r *request, seq uint64) int { return cmp.Compare(r.info.Seq, seq) })
	if !ok {
		return nil
	}
	r := t.order[i]
	if r.info.ID != ref.ID || r.info.Incoming != ref.Incoming {
		return nil
	}
	return r
}

// rows returns the rows kept, oldest first, as a copy: finishing a row
// may trim the table under a caller walking it.
func (t *requestTable) rows() []*request { return slices.Clone(t.order) }

// finish counts a row that reached its final state and trims.
func (t *requestTable) finish() {
	t.finished++
	t.trim()
}

// trim drops the oldest finished rows once more than maxFinished are
// kept, down to exactly maxFinished; it waits for a quarter more so that
// the cost of compacting is amortized.
func (t *requestTable) trim() {
	if t.finished <= t.maxFinished+t.maxFinished/4 {
		return
	}
	drop := t.finished - t.maxFinished
	kept := t.order[:0]
	// counted is in the order of order (both by Seq): walk it alongside.
	next, keptCounted := 0, 0
	for _, r := range t.order {
		isCounted := next < len(t.counted) && t.counted[next] == r
		if isCounted {
			next++
		}
		if drop > 0 && r.info.State.Final() {
			drop--
			t.finished--
			switch {
			case r.info.TaskID != "":
				delete(t.tasks, r.info.TaskID)
			case !r.info.Incoming && !isCounted:
				delete(t.out, r.info.ID.raw)
			}
			continue
		}
		if isCounted {
			t.counted[keptCounted], t.countedIDs[keptCounted] = r, t.countedIDs[next-1]
			keptCounted++
		}
		kept = append(kept, r)
	}
	clear(t.order[len(kept):])
	t.order = kept
	clear(t.counted[keptCounted:])
	t.counted, t.countedIDs = t.counted[:keptCounted], t.countedIDs[:keptCounted]
}
