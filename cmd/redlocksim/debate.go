package main

// argument is what a library scenario answers in the debate, and who
// argued it. A test checks that every library scenario has one.
type argument struct {
	name string
	text string
	who  []string
}

// The debate's people: Martin Kleppmann ("How to do distributed
// locking", 2016), Salvatore Sanfilippo, antirez (the Redis distlock page
// and "Is Redlock safe?", 2016), and Jepsen (the etcd 3.4.3 analysis, 2020).
const (
	kleppmann = "Kleppmann"
	antirez   = "antirez"
	jepsen    = "Jepsen"
)

// arguments are in the order the report tells them: the domain notes'
// table, from the safe baseline through failover, clocks, crashes, pauses
// and delays to consensus.
var arguments = []argument{
	{"baseline", "With no faults and small clock errors, Redlock gives mutual exclusion.", []string{antirez}},
	{"failover-race", "A master with an asynchronous replica loses the lock on failover: why Redlock exists.", []string{antirez}},
	{"failover-wait", "WAIT for a replica before using the lock: safe unless the promoted replica is stale.", []string{antirez}},
	{"clock-jump", "A clock jump on one node of the quorum lets a second client get a majority.", []string{kleppmann}},
	{"restart-no-persistence", "A node that restarts at once without persistence forgets the key.", []string{kleppmann, antirez}},
	{"restart-delayed", "Keep a crashed node away a bit longer than the maximum TTL: safe, at the price of availability.", []string{antirez}},
	{"restart-aof-always", "AOF with fsync before every reply keeps the key across a power loss.", []string{antirez}},
	{"aof-everysec-power-loss", "AOF everysec loses up to a second of writes when the power goes.", []string{antirez}},
	{"aof-everysec-process-crash", "A process crash keeps what reached the OS: everysec is enough for it.", []string{antirez}},
	{"pause-in-flight", "A pause while the replies are in flight is caught by the elapsed-time check.", []string{antirez}},
	{"pause-in-flight-no-check", "Without the validity check, stale OKs make two holders.", []string{kleppmann, antirez}},
	{"gc-pause", "A process pause after acquiring outlives the lock: tokens 33 and 34.", []string{kleppmann}},
	{"gc-pause-fencing", "A fencing token checked by the storage makes the resource safe; Redlock issues none.", []string{kleppmann}},
	{"gc-pause-cas", "The lock's random value can serve as a compare-and-set token at the resource.", []string{antirez}},
	{"client-clock-step-back", "A client that times acquisition on its wall clock is fooled when the clock steps back.", []string{kleppmann}},
	{"client-clock-step-back-monotonic", "Measure elapsed time on a monotonic clock.", []string{antirez}},
	{"server-drift-small", "Redlock needs only a bounded clock rate error, well within the drift factor.", []string{antirez}},
	{"server-drift-large", "Server clocks fast beyond the drift allowance expire keys under their holders.", []string{kleppmann}},
	{"delayed-write", "A delayed network packet to the storage acts like a pause.", []string{kleppmann}},
	{"delayed-write-fencing", "Fencing rejects the delayed write.", []string{kleppmann}},
	{"partition-holder", "A partitioned holder costs availability up to a TTL, not safety.", []string{antirez}},
	{"partition-holder-delayed-write", "A partition delays packets, TCP does not lose them: the holder's write arrives at the heal, like a delayed network packet.", []string{kleppmann}},
	{"split-vote", "Clients starting together split the votes; random retry delays settle it.", []string{antirez}},
	{"majority-crash-delayed-restart", "A crashed majority with delayed restart means no lock for a TTL.", []string{antirez}},
	{"consensus-lease-pauses", "A lease lock on a consensus store is not mutual exclusion when processes pause.", []string{jepsen, kleppmann}},
	{"consensus-lease-server-pauses", "Pausing the lease store's servers, as Jepsen's nemesis did, expires every lease at once; etcd's recipe reads its own key before it returns, so nobody works under a dead lease.", []string{jepsen}},
	{"consensus-lease-fencing", "The lock key's revision as a fencing token makes the lease lock's resource safe.", []string{jepsen, kleppmann}},
	{"watchdog-gc-pause", "A watchdog that renews the lock pauses with its process: Redisson's holder writes after the lock has passed on.", []string{kleppmann}},
	{"watchdog-partition", "A watchdog whose renewals fail tells nobody: the holder works on while another client locks.", []string{kleppmann}},
	{"auto-extend-abort", "An extension that fails can stop the work before the key expires: node-redlock's using() is safe here.", []string{antirez}},
	{"redlock-py-drift-sign", "The drift allowance must shorten the validity; redlock-py's sign bug lengthened it.", []string{antirez}},
	{"redlock-py-connected-quorum", "The quorum is a majority of all N nodes; redlock-py counted only those it reached.", []string{antirez}},
	{"node-redlock-first-attempt-expiry", "Validity counts from the try that succeeded; from the first, node-redlock's locks arrived expired.", []string{antirez}},
}

// argumentOf returns the argument a library scenario answers.
func argumentOf(name string) (argument, bool) {
	for _, a := range arguments {
		if a.name == name {
			return a, true
		}
	}
	return argument{}, false
}
