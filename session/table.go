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
//   - out holds exactly the outgoing rows of order but task rows, by id text; a
//     request leaves out only when trim drops it from order;
//   - in holds the incoming rows whose handler has not answered yet;
//   - tasks holds the task rows of order, by task id (a task row shares
//     the id of the request that created it, so it is never in out);
//   - finished counts the rows of order in a final state;
//   - after a trim, exactly maxFinished finished rows remain, the newest.
type requestTable struct {
	out         map[string]*request // outgoing, by id JSON text
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
		t.out[r.info.ID.raw] = r
	}
	t.order = append(t.order, r)
}

// outgoing finds our request by its id's exact JSON text: "1" never
// finds request 1.
func (t *requestTable) outgoing(idText string) *request { return t.out[idText] }

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
	for _, r := range t.order {
		if drop > 0 && r.info.State.Final() {
			drop--
			t.finished--
			switch {
			case r.info.TaskID != "":
				delete(t.tasks, r.info.TaskID)
			case !r.info.Incoming:
				delete(t.out, r.info.ID.raw)
			}
			continue
		}
		kept = append(kept, r)
	}
	clear(t.order[len(kept):])
	t.order = kept
}
