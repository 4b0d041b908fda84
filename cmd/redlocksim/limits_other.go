//go:build !unix

package main

// checkFileLimit has no open-file limit to check outside Unix.
func checkFileLimit(nodes, clients int) error { return nil }
