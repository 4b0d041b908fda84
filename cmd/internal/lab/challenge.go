package lab

// challengeJSON is a challenge of the lab's challenge mode: break mutual
// exclusion on the scenario, started from Sets (its own faults removed),
// with at most Max actions of the adversary (the faults the student adds
// by clicks: a freeze, a held or dropped message, a crash...). Par is the
// number of faults of the explorer's minimal counterexample on that
// start, Minimal that counterexample as the explorer writes it, and
// Explore the command that finds it; TestChallengesParIsTheExplorers
// runs the explorer and checks both.
type challengeJSON struct {
	Max     int      `json:"max"`
	Par     int      `json:"par"`
	Minimal string   `json:"minimal"`
	Explore string   `json:"explore"`
	Sets    []string `json:"sets"`
}

// challenges are the library's challenges, by scenario.
var challenges = map[string]challengeJSON{
	"gc-pause": {
		Max: 3, Par: 1, Minimal: "pause c1 at 1.895s for 9.108s",
		Explore: "redlocksim explore gc-pause --set 'faults=[]' --faults pause --max-faults 2 --runs 300 --seed 1",
		Sets:    []string{"faults=[]"},
	},
	// The lease lock is no harder to break: a session outlived by a
	// pause is the same story with ZooKeeper's session timeout.
	"zookeeper-session-pause": {
		Max: 3, Par: 1, Minimal: "pause c3 at 5.061s for 5.814s",
		Explore: "redlocksim explore zookeeper-session-pause --set 'faults=[]' --faults pause --max-faults 2 --runs 300 --seed 1",
		Sets:    []string{"faults=[]"},
	},
}
