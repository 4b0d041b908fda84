// Package htmltest reads a parsed HTML page for tests: the elements that
// match, an element's attribute, the text below a node. Both the report
// package's tests and cmd/redlocksim's report tests assert on the page
// this way, so the walk is written once.
package htmltest
