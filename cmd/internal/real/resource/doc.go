// Package resource is the reality check's protected resource: a small TCP
// server on loopback that real client processes read and write through the
// fault proxy, and that records every operation it serves for the checker.
//
// It does not reimplement the resource: each request is handed to the
// simulator's own model/resource.Resource, through a minimal proto.Env, so
// that the modes (unprotected, fencing, compare-and-set), the version tree,
// the lost-update rule and the rejection texts ("token 33 < 34") are those
// of the simulation by construction. What this package adds is wall time:
// requests are served one at a time in arrival order, each taking the
// config's ServiceTime of real time (slept) before it takes effect, and each
// is stamped with its monotonic time since the start instant the harness
// gives, when it takes effect.
//
// The protocol is one line per request and one line per reply, ASCII,
// fields separated by single spaces, numbers in decimal:
//
//	READ  <client> <lock> <token>                    ->  OK <version> <e1,e2,...|->
//	WRITE <client> <lock> <token> <element> <base>   ->  OK <version>
//	                                                 |   NO <version> <stale-token|not-owner> <reason>
//	anything malformed                               ->  ERR <what is wrong>
//
// <client> is the client's scenario name (no spaces), <lock> its lock value
// (the value that names its hold), <token> its fencing token (0 = none),
// <element> the unique element a write adds, and <base> the version the
// write's read returned. A read's reply lists the set at the current
// version. A malformed request, or a write based on a version never issued,
// is answered with ERR and changes and records nothing. So is a write based
// on a version older than the model keeps (model/resource.Window), with the
// model's own words; it breaks the server, which answers every later
// request with the same ERR, as the run can no longer be judged, and
// reports it to the harness (Server.Err), which fails the run with it.
//
// History converts the record into model/check's Read and Write values,
// given the harness's mapping from (client, lock value) to hold ID, as
// model.World does for the simulator.
//
// Client is the API the client processes use: one connection, redialled
// after any error or timeout (a reply that comes too late would otherwise
// answer the next request). A request that timed out may still take effect
// at the server, as in the simulator.
package resource
