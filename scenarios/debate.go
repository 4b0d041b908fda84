package scenarios

// Debate is the argument a scenario plays out: the claim, who made it,
// and the other side's answer. The report and the lab both show it, so it
// lives with the scenario rather than in a command.
type Debate struct {
	Claim    string
	By       []string // who made the claim: "Kleppmann", "antirez", "Jepsen", ...
	Answer   string   // "" when the file gives none
	AnswerBy []string
}

// The debate's people: Martin Kleppmann ("How to do distributed
// locking", 2016), Salvatore Sanfilippo, antirez (the Redis distlock page
// and "Is Redlock safe?", 2016), and Jepsen (the etcd 3.4.3 analysis, 2020).
// Each library scenario names who made its claim and who answered it in
// its [debate] table (by, answer_by); a test checks that these are the
// names used.
var DebatePeople = []string{"Kleppmann", "antirez", "Jepsen"}

// DebateOrder is the order in which the report tells the library's
// scenarios: the domain notes' table, from the safe baseline through
// failover, clocks, crashes, pauses and delays to consensus. What each
// scenario argues is in its file ([debate]), which the report and the lab
// both read; a test checks that every library scenario is listed once.
var DebateOrder = []string{
	"baseline",
	"failover-race",
	"failover-wait",
	"clock-jump",
	"restart-no-persistence",
	"restart-delayed",
	"restart-aof-always",
	"aof-everysec-power-loss",
	"aof-everysec-process-crash",
	"pause-in-flight",
	"pause-in-flight-no-check",
	"gc-pause",
	"gc-pause-fencing",
	"gc-pause-cas",
	"client-clock-step-back",
	"client-clock-step-back-monotonic",
	"server-drift-small",
	"server-drift-large",
	"delayed-write",
	"delayed-write-fencing",
	"partition-holder",
	"partition-holder-delayed-write",
	"split-vote",
	"majority-crash-delayed-restart",
	"consensus-lease-pauses",
	"consensus-lease-server-pauses",
	"consensus-lease-fencing",
	"watchdog-gc-pause",
	"watchdog-partition",
	"auto-extend-abort",
	"redlock-py-drift-sign",
	"redlock-py-connected-quorum",
	"node-redlock-first-attempt-expiry",
	"zookeeper-session-pause",
	"zookeeper-session-fencing",
	"k8s-leader-pause",
	"k8s-clock-step",
	"dynamodb-fast-waiter",
	"consul-lock-delay",
	"consul-holder-crash",
}
