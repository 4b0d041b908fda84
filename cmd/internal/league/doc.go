// Package league is redlocksim league: every lock in the configuration its
// documentation recommends (Redlock, Redisson with and without WAIT 1, etcd,
// ZooKeeper, Kubernetes leases, DynamoDB, Consul), with and without
// fencing where the lock has a token, under the same fault sets, judged by
// one checker. Play runs the cells (in parallel, each run single-threaded,
// the cells independent of the workers); Markdown, CSV and Figure are what the command writes.
package league
