// Package datafile parses the measurement files a scenario's empirical
// tables name (GC logs, latency logs, plain durations) into samples. It
// works on the bytes the loader read, never on the file system, so that
// what a file means is a pure function of its contents.
//
// The formats, and exactly what each reads, are documented in
// docs/guides/your-own-data.md; a change here changes that page.
package datafile
