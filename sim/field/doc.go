// Package field names the fields of a configuration in Go terms and carries
// a problem with one of them as a typed error: the path to the field
// (Nodes[2].Clock.Steps[1].At), the subject it belongs to (the node "n3"),
// and the cause. Validators below the model return these errors; whoever
// read the configuration from a file maps each path back to where the file
// set it, without reading error text.
//
// The package has no dependencies, so that clocks and network, below the
// model, can use it too.
package field
