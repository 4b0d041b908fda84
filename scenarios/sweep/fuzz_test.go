package sweep

import (
	"testing"

	"github.com/redlocksim/redlocksim/scenarios"
)

// FuzzParse: Parse never panics, and every error it returns is made of
// *scenarios.Error.
func FuzzParse(f *testing.F) {
	f.Add(grid)
	f.Add("seeds = 2\n[axes]\nlock.ttl = [\"1s\"]\n" + base)
	f.Add("base = \"baseline\"\n[[points]]\n\"faults[0].for\" = \"1s\"\n")
	f.Add("[set]\nclients.pauses = { every = \"1s\" }\n" + base)
	for _, name := range scenarios.SweepNames() {
		data, _ := scenarios.SweepFile(name)
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse("fuzz.toml", []byte(src))
		if err != nil {
			if len(scenarios.Errors(err)) == 0 {
				t.Fatalf("an error that is not a *scenarios.Error: %v", err)
			}
			return
		}
		if s.NumPoints() < 1 || len(s.Point(s.NumPoints()-1).Cells) != len(s.Columns) {
			t.Fatalf("a spec with %d points and columns %v", s.NumPoints(), s.Columns)
		}
	})
}
