/*
 * The node clock library: LD_PRELOAD it into a process (redis-server) to
 * make CLOCK_REALTIME read the node's clock from a clock file (doc.go gives
 * the format). Built by package clockshim; see doc.go for why it is written
 * this way.
 *
 * Nothing here may allocate or resolve symbols: jemalloc reads the clock
 * while it initialises, so a clock_gettime that calls malloc (or dlsym,
 * which allocates) deadlocks or crashes the server before it starts. That
 * is where libfaketime fails with this redis-server. The real clocks come
 * from raw system calls, and the file is mapped with raw openat and mmap.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define CLOCKSHIM_ENV "REDLOCKSIM_CLOCK_FILE"
#define CLOCKSHIM_MAGIC 0x31304b4c43534c52ULL /* the bytes "RLSCLK01" read little-endian */
#define HEADER 32
#define SEGMENT 32
#define MAX_SEGMENTS 65536

struct segment {
	int64_t at;    /* true ns since T0 the segment starts */
	int64_t local; /* whole local ns at at */
	int64_t frac;  /* plus frac/1e9 local ns */
	int64_t rate;  /* local ns per 1e9 true ns */
};

struct header {
	uint64_t magic;
	uint32_t version;
	uint32_t n;
	int64_t t0;    /* CLOCK_MONOTONIC ns at true time 0; 0: not started */
	int64_t epoch; /* CLOCK_REALTIME ns at T0, written before t0 */
};

/* state: 0 not yet mapped, 1 someone is mapping it, 2 mapped, 3 no file. */
static int state;
static const struct header *hdr;
static const struct segment *segs;

static long raw_clock(clockid_t id, struct timespec *ts) {
	return syscall(SYS_clock_gettime, id, ts);
}

static void die(const char *msg) {
	static const char pre[] = "redlocksim clockshim: ";
	const char *p;
	syscall(SYS_write, 2, pre, sizeof pre - 1);
	for (p = msg; *p; p++)
		;
	syscall(SYS_write, 2, msg, (size_t)(p - msg));
	syscall(SYS_write, 2, "\n", 1);
	syscall(SYS_exit_group, 70);
}

/* check says what is wrong with a mapped file of size bytes, or 0. */
static const char *check(const struct header *h, int64_t size) {
	const struct segment *s = (const struct segment *)((const char *)h + HEADER);
	uint32_t i;
	if (size < HEADER || h->magic != CLOCKSHIM_MAGIC)
		return "the clock file does not start with the magic RLSCLK01";
	if (h->version != 1)
		return "the clock file's version is not 1";
	if (h->n < 1 || h->n > MAX_SEGMENTS)
		return "the clock file's segment count is not in 1..65536";
	if (size != HEADER + (int64_t)h->n * SEGMENT)
		return "the clock file's size does not match its segment count";
	if (s[0].at != 0)
		return "the clock file's first segment does not start at true time 0";
	for (i = 0; i < h->n; i++) {
		if (i > 0 && s[i].at <= s[i - 1].at)
			return "the clock file's segments are not in increasing true-time order";
		if (s[i].frac < 0 || s[i].frac >= 1000000000)
			return "a segment's frac is outside [0, 1e9)";
		if (s[i].rate < 800000000 || s[i].rate > 1200000000)
			return "a segment's rate is outside [0.8e9, 1.2e9]";
	}
	return 0;
}

/* map maps the clock file named by the environment, once. */
static void map(void) {
	const char *path, *why;
	long fd;
	int64_t size;
	void *m;
	int want = 0;
	if (!__atomic_compare_exchange_n(&state, &want, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return; /* mapped, or another thread is at it: it reads real time meanwhile */
	path = getenv(CLOCKSHIM_ENV);
	if (!path || !*path) {
		__atomic_store_n(&state, 3, __ATOMIC_RELEASE);
		return;
	}
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("cannot open the clock file named by " CLOCKSHIM_ENV);
	size = syscall(SYS_lseek, fd, 0, SEEK_END);
	if (size < HEADER)
		die("the clock file is shorter than its header");
	m = (void *)syscall(SYS_mmap, 0, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	syscall(SYS_close, fd);
	if (m == MAP_FAILED)
		die("cannot map the clock file");
	if ((why = check(m, size)))
		die(why);
	hdr = m;
	segs = (const struct segment *)((const char *)m + HEADER);
	__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
}

/* local is the clock's reading at true time t >= 0: the segment in force
 * at t, evaluated exactly as clocks.Clock.Local does. */
static int64_t local(const struct segment *s, uint32_t n, int64_t t) {
	uint32_t lo = 0, hi = n; /* s[lo].at <= t < s[hi].at */
	unsigned __int128 x;
	while (hi - lo > 1) {
		uint32_t m = lo + (hi - lo) / 2;
		if (s[m].at <= t)
			lo = m;
		else
			hi = m;
	}
	x = (unsigned __int128)(uint64_t)(t - s[lo].at) * (uint64_t)s[lo].rate + (uint64_t)s[lo].frac;
	return s[lo].local + (int64_t)(x / 1000000000u);
}

/* wall reads the node's wall clock in ns since the Unix epoch into *ns and
 * returns 1, or returns 0 when the real clock is to be read instead (no
 * clock file, or the run has not started). */
static int wall(int64_t *ns) {
	struct timespec now;
	int64_t t0, t;
	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 0)
		map();
	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2)
		return 0;
	t0 = __atomic_load_n(&hdr->t0, __ATOMIC_ACQUIRE);
	if (t0 == 0)
		return 0;
	raw_clock(CLOCK_MONOTONIC, &now);
	t = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - t0;
	if (t < 0)
		t = 0;
	*ns = __atomic_load_n(&hdr->epoch, __ATOMIC_ACQUIRE) + local(segs, hdr->n, t);
	return 1;
}

static void split(int64_t ns, struct timespec *ts) {
	int64_t s = ns / 1000000000, r = ns % 1000000000;
	if (r < 0) {
		s--;
		r += 1000000000;
	}
	ts->tv_sec = s;
	ts->tv_nsec = r;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
	int64_t ns;
	long r;
	if ((id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE) && wall(&ns)) {
		split(ns, ts);
		return 0;
	}
	r = raw_clock(id, ts);
	return r < 0 ? -1 : 0; /* syscall() has set errno */
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
	int64_t ns;
	struct timespec ts;
	/* glibc declares tv nonnull, but the kernel and the vDSO take NULL:
	 * hide the declaration from the optimiser so the check stays. */
	__asm__("" : "+r"(tv));
	if (tz)
		syscall(SYS_gettimeofday, 0, tz);
	if (!tv)
		return 0;
	if (!wall(&ns)) {
		raw_clock(CLOCK_REALTIME, &ts);
		ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	split(ns, &ts);
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t time(time_t *out) {
	int64_t ns;
	struct timespec ts;
	if (!wall(&ns)) {
		raw_clock(CLOCK_REALTIME, &ts);
		ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	split(ns, &ts);
	if (out)
		*out = ts.tv_sec;
	return ts.tv_sec;
}
