// Package proc supervises the child processes of a real run: redis-server,
// redis-sentinel, etcd, ZooKeeper and the lock-client processes. Servers
// starts, waits for and signals a store that runs as a group of servers
// (an etcd cluster, a ZooKeeper ensemble) as one.
//
// Invariants:
//   - Every child runs in its own process group (Setpgid) and gets SIGKILL
//     when the thread that started it dies (Pdeathsig). All children are
//     started from one goroutine locked to its OS thread for the life of the
//     program, because Linux ties Pdeathsig to the starting thread, not the
//     process: a child started from a Go thread that later exits would be
//     killed with it.
//   - Group.Close kills every child's whole process group with SIGKILL
//     (a stopped child dies too), reaps it, and removes every temporary
//     directory the group made, after the calls registered with Defer (an
//     unmount) and after detaching any filesystem still mounted under one.
//     Close is idempotent and safe to call from a signal handler
//     goroutine, a defer during a panic, or t.Cleanup.
//   - A run killed with SIGKILL runs no Close. Each temporary directory has
//     an owner file beside it (<dir>.redlocksim-owner: pid and start time),
//     and the first TempDir of the next process removes every directory
//     whose owner is dead (RemoveStale), detaching its mounts first.
//     Directories made before owner files existed are left alone: nothing
//     says whose they are.
//   - Every wait has a deadline. A child that exits on its own while
//     something waits for it turns into an error that says which child,
//     how it exited and the last lines it printed.
//   - Ports handed out by FreePort are unique within this process; a port
//     taken by another program between FreePort and the child's bind shows
//     up as a child that exits, which WaitTCP reports.
//   - A binary that is not installed is a *MissingError naming the Debian
//     package that provides it.
package proc
