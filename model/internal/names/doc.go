// Package names parses the scenario-file names of the model's small
// enumerations (a token source, a renewal, a persistence...), each listed
// as a slice of names indexed by value.
package names
