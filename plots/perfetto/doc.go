// Package perfetto writes a run in Chrome's Trace Event format (the JSON
// flavour), which ui.perfetto.dev and chrome://tracing open.
//
// It takes plain data, as its parent package plots does: a Trace of
// tracks, slices, instants and messages in true time, and returns bytes; it
// imports nothing of the simulator. The caller (cmd/redlocksim) turns a
// model.Result into a Trace.
//
// The layout: one trace process per simulated process (clients, nodes,
// the resource, the store), kept in the run's display order by
// process_sort_index. Within it, each slice category gets its own thread
// ("lock" for holds as believed and keys on nodes, "faults" for pauses and
// crashes), so that slices on one thread nest, which the format requires of
// complete events; instants (clock steps, writes) and messages go on
// "events". Each delivered message is an instant on its receiver; a reply is
// joined to its request by a flow arrow, from the request's arrival at the
// server to the reply's arrival at the client. Partitions and heals are
// global instants.
//
// Reference: "Trace Event Format", Google, the document chrome://tracing
// and Perfetto's JSON importer follow: every event has name, ph, ts (in
// microseconds), pid and tid; complete events ("X") add dur; instants ("i")
// a scope s; flow events ("s", "f") an id and, for the end, bp "e" to bind
// to the enclosing slice.
package perfetto
