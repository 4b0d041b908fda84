// Package lazyfs is a FUSE filesystem that loses what was not fsynced, as
// a machine does at a power loss. It serves a backing directory at a mount
// point; a real run puts a node's data directory on it, so that a
// power-loss fault can drop the unsynced tail of redis-server's AOF while
// a process crash (SIGKILL) keeps it. Jepsen's lazyfs is the model.
//
// What survives a power loss (DropUnsynced):
//   - File contents and sizes: a write, an append or a truncate lives in
//     an in-memory page cache of the file until fsync or fdatasync of that
//     file writes it down to the backing file. Reads see the cache, as
//     they see the kernel's page cache. DropUnsynced discards every
//     unsynced byte; the files read back as they were at their last sync.
//     Closing a file syncs nothing; a SIGKILL of the writer keeps the
//     cache, as the kernel's page cache outlives a crashed process.
//   - The namespace, at once: create, mkdir, rename, unlink, link and
//     chmod go straight to the backing directory, so they survive a power
//     loss without an fsync of the directory. This is lazyfs's choice too
//     (it caches data only). A file created and never fsynced survives,
//     empty; a file renamed over another survives under the new name with
//     the contents it last synced. Redis fsyncs a rewritten AOF and its
//     manifest before renaming them, so for Redis this is the outcome a
//     journaling filesystem gives as well; it is more generous than a
//     filesystem that can lose a rename it did not journal yet.
//   - File handles opened before DropUnsynced fail with EIO afterwards:
//     they belonged to processes of the machine that lost its power. Kill
//     the writers (before or after), then open the files again.
//
// The kernel caches nothing of the mount (no entry or attribute timeouts,
// FOPEN_DIRECT_IO on every open): the sizes shrink behind its back at a
// power loss, and a stale cached size would put the next O_APPEND write
// past the end of the file. The backing directory stands for the disk
// and is never lost itself, so lazyfs never fsyncs the backing files.
//
// Mounting needs /dev/fuse and fusermount3 (Debian package fuse3); without
// them Mount and Available return an error naming what is missing.
// Close unmounts, lazily when files are still open; callers defer it or
// register it with proc.Group.Defer so that a return, a signal or a panic
// unmounts. A process killed with SIGKILL leaves its mount behind, dead:
// proc.RemoveStale, run by the next process's first temporary directory,
// detaches it with the directory it is in.
//
// A process must not start a child whose working directory is on a mount
// it serves itself (exec.Cmd.Dir): Go forks with CLONE_VFORK, the child
// keeps one of the parent's Ps until it execs, and if a garbage
// collection stops the world while the child's chdir waits on the mount,
// neither ever finishes. Give the child another working directory and
// the mount path as an argument (redis-server --dir) instead.
//
// Files are known by their backing inode numbers, so the backing
// directory must be one filesystem. The cache has no size bound: it holds
// whatever was written since the last fsync.
package lazyfs
