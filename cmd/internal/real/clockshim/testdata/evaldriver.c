/*
 * The clock library's test driver: the library itself, plus a main that
 * reads commands on stdin, one a line, and answers each on stdout:
 *   "L t"  the clock's reading at true time t (ns), from the segments;
 *   "N"    three readings "m1 w m2 s": CLOCK_MONOTONIC, then the wall
 *          clock through clock_gettime, then CLOCK_MONOTONIC again, and
 *          the same wall reading through gettimeofday (us) and time (s)
 *          as "g u" on a second line.
 * The clock file is named by REDLOCKSIM_CLOCK_FILE, as for any process.
 */
#include "../csrc/clockshim.c"
#include <stdio.h>

int main(void) {
	char cmd[8];
	long long t;
	map();
	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2) {
		fprintf(stderr, "no clock file mapped\n");
		return 2;
	}
	while (scanf("%7s", cmd) == 1) {
		if (cmd[0] == 'L' && scanf("%lld", &t) == 1) {
			printf("%lld\n", (long long)local(segs, hdr->n, t));
		} else if (cmd[0] == 'N') {
			struct timespec m1, w, m2;
			struct timeval tv;
			time_t s;
			raw_clock(CLOCK_MONOTONIC, &m1);
			clock_gettime(CLOCK_REALTIME, &w);
			gettimeofday(&tv, 0);
			s = time(0);
			raw_clock(CLOCK_MONOTONIC, &m2);
			printf("%lld %lld %lld\n%lld %lld\n",
			       (long long)m1.tv_sec * 1000000000 + m1.tv_nsec,
			       (long long)w.tv_sec * 1000000000 + w.tv_nsec,
			       (long long)m2.tv_sec * 1000000000 + m2.tv_nsec,
			       (long long)tv.tv_sec * 1000000 + tv.tv_usec, (long long)s);
		} else {
			fprintf(stderr, "bad command %s\n", cmd);
			return 2;
		}
		fflush(stdout);
	}
	return 0;
}
