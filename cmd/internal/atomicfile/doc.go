// Package atomicfile writes output files so that a reader sees the old
// file or the whole new one, never half of it, and so that writing never
// destroys what the name points at.
//
// A regular file (or a name that does not exist yet) is written under a
// temporary name in its directory and renamed over the name. A symbolic
// link is followed first: the temporary file goes beside the link's
// target and is renamed over the target, so the link stays a link. A name
// that is not a regular file at the end of its links (a device such as
// /dev/null, a named pipe, a terminal) cannot take a rename without being
// replaced, so it is opened and written directly; File.Direct says so, and
// callers tell the user that the write was not atomic.
package atomicfile
