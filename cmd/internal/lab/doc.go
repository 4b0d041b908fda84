// Package lab is the lecture lab: a local web app in which a teacher picks
// a scenario, changes a pause, a clock or a remedy, and sees the verdict
// and the space-time diagram change at once.
//
// The server (Handler, Listen) serves the page, its script and its style
// from the binary (go:embed; nothing is fetched from elsewhere: no CDN, no
// fonts), the scenario files of one directory (Options.Dir, read through
// an os.Root so that no path can leave it), and a JSON API:
//
//	GET /api/scenarios               the library and the directory's files, with
//	                                 description, lesson, [debate], challenge and any
//	                                 loader error; the tours (scenarios/tour): the
//	                                 library's and the directory's *.tour.toml
//	GET /api/run?s=NAME&set=K=V&...  one narrated run: verdicts, run --json's object,
//	    &seed=N&whatif=REMEDY        the timeline (model.TimelineOf), power losses and the
//	                                 keys they lost, overlaps, delivered messages, the
//	                                 narrated trace and each lane's clock; whatif names
//	                                 one remedy (scenarios.Remedies, --what-if's) applied on top
//	GET /api/inject?...&kind=K       the overrides with one more fault at the cursor
//	                                 (pause, crash, power-loss, clock-step), a message
//	                                 held, delivered early or dropped (hold-message,
//	                                 drop-message), or a frozen process woken (wake)
//	GET /api/download?...            the scenario as a file of its own (scenarios.Render)
//
// A run is the scenario with its overrides applied by the scenarios
// package's own loader (Base.Apply), so that a bad value comes back as the
// loader's message, with its key, for the page to show beside the knob; it
// is then rendered to a file of its own and loaded from those bytes, which
// is exactly what `redlocksim run FILE --json --trace` does with the
// downloaded file, so that the two print the same JSON.
//
// What one request may cost is bounded: a run has run's event budget
// (model.DefaultMaxEvents), and a client (the page's id, else its address)
// runs one scenario at a time; a request that arrives while an earlier one
// of the same client waits or runs supersedes it, and the superseded one
// answers 409 without running. Runs are pure and take milliseconds, so
// they are not interrupted, only not started.
//
// WriteExport writes the same page as static files (`redlocksim lab
// --export`), with static.js, which runs the simulator compiled to
// WebAssembly (cmd/internal/labwasm: this package's Server, answering the
// page's requests inside the browser) where the page would call the
// server; the page's requests and their answers are the same.
//
// The package simulates nothing itself: it calls scenarios and model, and
// the command (cmd/redlocksim lab) supplies run --json's
// encoder.
package lab
