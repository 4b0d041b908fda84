package main

import (
	"flag"
	"io"
	"strings"
)

// isBoundaryPlot reports whether plot's arguments are the old spelling of
// plot onset, plot --boundary FILE, which has flags of its own.
func isBoundaryPlot(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "boundary" {
			return true
		}
	}
	return false
}

// cmdPlotBoundary is plot --boundary CURVE.csv, the old spelling of plot
// onset CURVE.csv, with its messages.
func cmdPlotBoundary(args []string, stdout, stderr io.Writer) error {
	onset := findPlotKind("onset")
	fs := newFlagSet("plot --boundary", "", stderr)
	fs.Usage = func() { onset.usage(stderr, fs) }
	f := &plotFlags{}
	var in string
	fs.StringVar(&in, "boundary", "", "the curve's `CSV`, as boundary --over writes it (required)")
	f.common(fs)
	onset.flags(f, fs)
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" { // even as --boundary's value
			fs.Usage()
			return flag.ErrHelp
		}
	}
	rest, err := parseArgs(fs, args)
	switch {
	case err != nil:
		return err
	case len(rest) > 0:
		return badPlot("--boundary names the curve's CSV; unexpected arguments %s", strings.Join(rest, " "))
	case in == "" || f.out == "":
		return badPlot("--boundary and --out are required")
	}
	return onset.plot(f, []string{in}, stdout)
}
