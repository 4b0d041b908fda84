package explore

import (
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/scenarios"
)

func boundaryOn(t *testing.T, name, key, from, to string, seeds int) (*Boundary, error) {
	t.Helper()
	b, err := scenarios.LoadBase(name)
	if err != nil {
		t.Fatal(err)
	}
	return FindBoundary(BoundaryOptions{Base: b, Arg: name, Key: key, From: from, To: to, Seeds: seeds, Property: Mutex, Workers: 2})
}

// Contract: the measured threshold of the nodes' clock rate in
// server-drift-small and of the clock step in clock-jump lies within the
// bracket of the closed form's prediction.
func TestContractBoundaryAgreesWithAnalytic(t *testing.T) {
	for _, c := range []struct{ name, key, from, to string }{
		{"server-drift-small", "nodes.clock.rate_ppm", "0", "50000"},
		{"clock-jump", "faults[4].by", "0s", "20s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := boundaryOn(t, c.name, c.key, c.from, c.to, 5)
			if err != nil {
				t.Fatal(err)
			}
			if b.Safe.Violates || !b.Violating.Violates {
				t.Fatalf("the bracket's ends are %v and %v, want safe and violating", b.Safe, b.Violating)
			}
			if d := b.Violating.Value - b.Safe.Value; d < 0 || d > b.Tol {
				t.Errorf("the bracket [%s, %s] is wider than the tolerance %s", b.Format(b.Safe.Value), b.Format(b.Violating.Value), b.Format(b.Tol))
			}
			p := b.Analytic
			if p == nil {
				t.Fatal("no analytic prediction")
			}
			if !p.Agrees(b) {
				t.Errorf("measured [%s, %s], predicted [%s, %s] (%s)", b.Format(b.Safe.Value), b.Format(b.Violating.Value), b.Format(p.Lo), b.Format(p.Hi), p.Facts)
			}
		})
	}
}

// A pause's length in gc-pause has a closed form too: the pause must
// outlast the majority's keys.
func TestBoundaryPauseLength(t *testing.T) {
	b, err := boundaryOn(t, "gc-pause", "faults[0].for", "1s", "20s", 3)
	if err != nil {
		t.Fatal(err)
	}
	if b.Analytic == nil || !b.Analytic.Agrees(b) {
		t.Fatalf("measured [%s, %s], prediction %+v", b.Format(b.Safe.Value), b.Format(b.Violating.Value), b.Analytic)
	}
}

func TestBoundaryBadInput(t *testing.T) {
	for _, c := range []struct{ name, key, from, to, want string }{
		{"baseline", "lock.ttl", "5s", "20s", "safe at both ends over seeds 1 to 2, so the verdict does not flip in [5s, 20s]"},
		{"gc-pause", "faults[0].for", "12s", "20s", "violates at both ends"},
		{"baseline", "resource.mode", "a", "b", `--from "a" is neither a number nor a duration`},
		{"baseline", "lock.ttl", "20s", "5s", "--from 20s must be less than --to 5s"},
		{"baseline", "resource.mode", "1", "2", "resource.mode"},
	} {
		_, err := boundaryOn(t, c.name, c.key, c.from, c.to, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s %s..%s: error %v, want one containing %q", c.name, c.key, c.from, c.to, err, c.want)
		}
	}
}

// The TTL against a pause: in gc-pause c1 holds the lock from about 0 s
// and pauses at 1 s for 15 s while c2 retries from 11 s, so a TTL short
// enough that the majority's keys expire before c1 lets go at 16 s lets c2
// in. The prediction's range is at most a retry gap wide and meets the
// measured bracket.
func TestBoundaryTTLAgainstPause(t *testing.T) {
	b, err := boundaryOn(t, "gc-pause", "lock.ttl", "2s", "30s", 3)
	if err != nil {
		t.Fatal(err)
	}
	p := b.Analytic
	if p == nil {
		t.Fatal("no analytic prediction for lock.ttl against gc-pause's pause")
	}
	if !strings.HasPrefix(p.Formula, "ttl < t_let − t_set") {
		t.Errorf("formula %q", p.Formula)
	}
	if !p.Agrees(b) {
		t.Errorf("measured [%s, %s], predicted [%s, %s] (%s)", b.Format(b.Violating.Value), b.Format(b.Safe.Value), b.Format(p.Lo), b.Format(p.Hi), p.Facts)
	}
	if w := time.Duration(p.Hi - p.Lo); w <= 0 || w > 400*time.Millisecond {
		t.Errorf("predicted range [%s, %s] is %v wide, want a positive width of at most a retry gap", b.Format(p.Lo), b.Format(p.Hi), w)
	}
}

// Without a pause fault lock.ttl has no closed form to apply.
func TestPredictTTLNeedsAPause(t *testing.T) {
	b, err := scenarios.LoadBase("baseline")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := b.Apply()
	if err != nil {
		t.Fatal(err)
	}
	if p := Predict("lock.ttl", sc.Config, sc.Config, sc.Seed); p != nil {
		t.Errorf("Predict(lock.ttl) on the baseline = %+v, want nil", p)
	}
}
