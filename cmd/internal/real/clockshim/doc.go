// Package clockshim gives a real process a node's clock: a small C library
// (csrc/clockshim.c, embedded), preloaded with LD_PRELOAD, makes the
// process's CLOCK_REALTIME read the node's clock as package clocks computes
// it, from a clock file the library maps read-only.
//
// The library overrides clock_gettime for CLOCK_REALTIME and
// CLOCK_REALTIME_COARSE, gettimeofday and time; every other clock id goes
// to the raw system call. It reads the real clocks with
// syscall(SYS_clock_gettime, ...) and maps the file with raw openat and
// mmap at first use: it calls neither dlsym nor malloc. That is the point
// of writing our own. redis-server's jemalloc reads the clock while it
// initialises, and libfaketime's set-up calls dlsym, which allocates, so
// under libfaketime this redis-server does not start.
//
// The file is the clock. It holds the node's clock as the piecewise-linear
// segments of clocks.Clock.Segments, in the run's scaled true time, and a
// CLOCK_MONOTONIC origin T0. The library computes
//
//	wall = epoch + Local(CLOCK_MONOTONIC - T0)
//
// where Local is the segments evaluated exactly as clocks.Clock.Local
// does (128-bit products, no floats) and epoch is the machine's wall clock
// at T0. Steps, rates, rate changes and slews are all segments, so nothing
// is signalled during a run. Until T0 is written (0 in the file) the
// library reads the machine's own clock: a node starts and loads its AOF
// before the run begins. A file that is named but missing or malformed
// makes the process print why on stderr and exit with status 70, at its
// first clock reading.
//
// The clock file, all integers little-endian, 32 + 32·n bytes:
//
//	bytes 0..7    magic "RLSCLK01"
//	bytes 8..11   uint32 version, 1
//	bytes 12..15  uint32 n, the number of segments, 1..65536
//	bytes 16..23  int64 T0: CLOCK_MONOTONIC in ns at true time 0; 0 until
//	              the run starts
//	bytes 24..31  int64 epoch: CLOCK_REALTIME in ns since the Unix epoch at
//	              T0, stored before T0
//	segment i     at 32 + 32·i, in increasing At, the first at 0:
//	  0..7    int64 At, true ns since T0 where the segment starts
//	  8..15   int64 Local, whole local ns at At
//	  16..23  int64 Frac, plus Frac/1e9 local ns, 0 <= Frac < 1e9
//	  24..31  int64 Rate, local ns per 1e9 true ns, in [0.8e9, 1.2e9]
//
// At true time t the segment in force is the last with At <= t, and the
// clock reads Local + floor((Frac + (t-At)·Rate) / 1e9). The harness
// writes the whole file before the process starts (Write); at T0 it maps
// the header's shared page and stores epoch, then T0, each with one
// aligned 8-byte atomic store (Start), and the library loads T0 (acquire)
// before epoch, so a reader sees either no T0 or both. The file is never written
// again, so a node that crashes and restarts reads the same clock.
//
// The library is compiled with the machine's C compiler (cc, or gcc) on
// first use, into os.UserCacheDir()/redlocksim/clockshim-HASH.so, where
// HASH is of the source and the flags. It is compiled to a temporary file
// and renamed into place, so concurrent runs each see a whole library. A
// missing compiler is a *proc.MissingError naming the Debian package gcc.
//
// What Redis does with this clock, checked by this package's tests on
// redis-server 7.0.15: it expires keys by its wall clock (mstime, from
// gettimeofday), so a forward step expires them early and a fast clock
// shortens their life in true time. A backward step lengthens it: PTTL
// grows by the step and the key dies that much later, and the server goes
// on serving; Redis 7 times its event loop on CLOCK_MONOTONIC, so no timer
// stalls. A backward step is therefore a note, not a refusal. (One effect
// the model lacks, read in Redis's source and not tested here: appendfsync
// everysec times its background fsyncs by the same wall clock, against
// aof_last_fsync, so a step back of s seconds postpones them by about s
// seconds; it matters only to a power loss, which kills no real process.)
package clockshim
