// Package diagram draws one request's life as a sequence diagram: the
// request, its progress (long runs collapsed, with counts and times), the
// cancel, the answer or error, traffic that came after the cancel and was
// ignored, and the server's own requests meanwhile. Life is the model;
// Mermaid and Text render it, for bug reports and for terminals and logs.
//
// The model is built from an NDJSON transcript (package transcript's
// format): `mcpoke diagram FILE` reads a saved one, and `call --diagram`
// draws the transcript of its own run, so both give the same picture.
// Reading a transcript is by nature reading frames, the one exception to
// "nothing above session parses frames": this package decodes JSON-RPC
// messages only from transcript lines, never from a live connection, and
// the CLI hands it transcripts rather than decoding anything itself.
//
// Every string that came from the server passes termtext before it is
// put in the model, so neither renderer can emit control, bidi or
// invisible characters; Mermaid then escapes what its grammar would read.
package diagram
