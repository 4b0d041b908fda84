// Package runjson is `redlocksim run --json`'s object: its fields (a
// contract), how a run fills them, and the replay command it names. The
// command prints it, and the lab (served or compiled to WebAssembly) shows
// the same bytes, so that a run in the browser can be compared with run.
package runjson
