// Package keypath writes and reads the key paths that address a TOML
// document: table and key names joined by dots, array elements by a 0-based
// index in brackets ("lock.ttl", "nodes.node[1].clock.rate_ppm",
// "faults[0].for"). A name that is not a bare key is quoted as TOML quotes
// it. The scenario loader names its errors with these paths, tomlpos
// records lines under them, and --set and sweep axes address a document
// with them.
package keypath
