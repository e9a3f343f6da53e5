// Package rows is the request-row model the screen shows: one Row per
// request of the session (ours and the server's), per stray answer and
// per task, kept up to date from the session's events.
//
// A Feed drains a session's events without ever blocking it and hands
// them over in batches, floods folded (progress and late progress in
// runs, strays, stderr and wire records bounded). Store.Apply folds each
// item of a batch into the rows and says what the screen should do
// about it: fetch the record of a row that settled, follow a task.
//
// Nothing here draws or reads keys: the package imports no Bubble Tea
// (a layer rule keeps it so), and the screen, package ui, wraps it.
// The rows hold no protocol rules either: states, lateness and what may
// be cancelled are the session's, and a row shows them.
package rows
