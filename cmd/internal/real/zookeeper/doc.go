// Package zookeeper runs the zookeeper lock of the reality check for real:
// a 3-server ZooKeeper ensemble on loopback (Debian's zookeeper 3.8.0, a
// Java program run from its jars with java) and a Go client that takes
// the lock as Curator's InterProcessMutex does, with
// github.com/go-zookeeper/zk.
//
// The ensemble (Start) is children of a proc.Group: each server is
// QuorumPeerMain on three free loopback ports (client, quorum, election)
// with its own zoo.cfg and myid in a temporary directory, its tickTime the
// scenario's tick. ZooKeeper's defaults are kept where the model relies on
// them: a session timeout is negotiated into [2, 20] ticks
// (minSessionTimeout and maxSessionTimeout), and the leader expires
// sessions in buckets of a tick. Start returns when every server says it
// is a leader or a follower (the srvr four-letter word) and a write
// through the ensemble has committed, or fails within its deadline naming
// the server and its last output. SIGSTOP and SIGCONT pause and resume a
// server's process, as for etcd. Closing the Group kills every server and
// removes its directory.
//
// The lock (Locker) is Curator's recipe (LockInternals.attemptLock and
// internalLockLoop), written against go-zookeeper's connection:
//   - an ephemeral sequential node under the lock path, created with
//     Curator's protection (a "_c_" GUID prefix, go-zookeeper's
//     CreateProtectedEphemeralSequential, which finds the node again after
//     a connection loss);
//   - the children sorted by sequence; the lowest holds; any other
//     watches its predecessor (a data watch, as Curator sets) and lists
//     the children again when it goes;
//   - a node gone from the list (its session expired) fails the try;
//     giving up, on an error or at the caller's deadline, deletes the
//     node, as Curator's deleteOurPath does;
//   - the fencing token is the node's czxid, read with one exists call
//     after the create (Curator hands the application its node's path;
//     the czxid is one read away).
//
// The connection states are Curator's ConnectionStateManager's, from
// go-zookeeper's session events: SUSPENDED when the connection is lost
// (go-zookeeper, as ZooKeeper's Java client, pings every third of the
// session timeout and gives a connection up after two thirds of silence),
// RECONNECTED when the same session is back, LOST when the server says
// the session expired or a session timeout after SUSPENDED without word
// from it (sessionExpirationPercent 100); at LOST the connection is
// closed and the next acquisition opens a new session, as Curator's
// injected expiration does. A holder stops believing at the state its
// error policy names (model/client.ErrorPolicy): SUSPENDED with Curator's
// default, the standard policy; LOST with the session policy.
// InterProcessMutex interrupts nothing (CURATOR-206): the work goes on.
package zookeeper
