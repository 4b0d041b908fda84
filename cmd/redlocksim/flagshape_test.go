package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSharedFlagsSpeakAsOne walks every listed command's flags (through
// flagSetMade) and checks that a flag of the shared groups means the same
// wherever it is taken: one help text for --set, --workers and
// --max-events, one refusal of a bad --seed. A command that declared its
// own --set or --seed would part from the others here.
func TestSharedFlagsSpeakAsOne(t *testing.T) {
	var made []*flag.FlagSet
	flagSetMade = func(fs *flag.FlagSet) { made = append(made, fs) }
	t.Cleanup(func() { flagSetMade = nil })

	var names []string
	for _, c := range commands {
		if c.hidden {
			continue
		}
		names = append(names, c.name)
		for _, sub := range c.subcommands {
			names = append(names, c.name+" "+sub.name)
		}
	}
	takers := map[string][]string{}
	usage := map[string]map[string][]string{} // flag -> usage -> commands
	seedErr := map[string][]string{}
	for _, name := range names {
		made = made[:0]
		code, _, stderr := runCLI(append(strings.Fields(name), "-h")...)
		require.Equal(t, 0, code, "%s -h: %s", name, stderr)
		require.NotEmpty(t, made, "%s made no FlagSet through newFlagSet", name)
		for _, fs := range made {
			fs.VisitAll(func(f *flag.Flag) {
				switch f.Name {
				case "set", "workers", "max-events":
					takers[f.Name] = append(takers[f.Name], name)
					if usage[f.Name] == nil {
						usage[f.Name] = map[string][]string{}
					}
					usage[f.Name][f.Usage] = append(usage[f.Name][f.Usage], name)
				case "seed":
					takers["seed"] = append(takers["seed"], name)
					err := fs.Set("seed", "-1")
					require.Error(t, err, "%s --seed -1", name)
					seedErr[err.Error()] = append(seedErr[err.Error()], name)
				}
			})
		}
	}
	for _, f := range []string{"set", "workers", "max-events"} {
		assert.Len(t, usage[f], 1, "--%s has one help text everywhere; by text: %v", f, usage[f])
	}
	assert.Len(t, seedErr, 1, "--seed -1 is refused in one message everywhere; by message: %v", seedErr)
	// The groups are shared, not one command's: the commands that make
	// runs from one scenario all take --set (a sweep takes its points from
	// its spec).
	for _, name := range []string{"run", "explore", "boundary", "hunt", "real", "compare"} {
		assert.Contains(t, takers["set"], name, "%s takes --set", name)
	}
	assert.GreaterOrEqual(t, len(takers["seed"]), 4, "commands taking --seed: %v", takers["seed"])
	assert.GreaterOrEqual(t, len(takers["workers"]), 3, "commands taking --workers: %v", takers["workers"])
}
