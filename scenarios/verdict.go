package scenarios

import (
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
)

// Verdict is the word a scenario file's [expect] and every output use for
// a property's outcome: Safe or Violation.
func Verdict(safe bool) string {
	if safe {
		return Safe
	}
	return Violation
}

// Unexpected lists the checker's verdicts that contradict e ("mutual
// exclusion is safe, expected violation"), given whether the run kept
// mutual exclusion and the resource (check.Report.Safe); none when the run
// is as expected, and a property e does not name contradicts nothing.
func (e Expect) Unexpected(mutexSafe, resourceSafe bool) []string {
	var out []string
	contradicts := func(what, want string, safe bool) {
		if got := Verdict(safe); want != "" && got != want {
			out = append(out, fmt.Sprintf("%s is %s, expected %s", what, got, want))
		}
	}
	contradicts("mutual exclusion", e.Mutex, mutexSafe)
	contradicts("the resource", e.Resource, resourceSafe)
	return out
}

// DefaultLivenessLimit is how long a client may wait for the lock once the
// faults have healed, when neither the file (liveness_limit) nor explore
// (--liveness) says: three TTLs of the lock, ttl. This is the one place
// the rule is stated.
func DefaultLivenessLimit(ttl time.Duration) time.Duration { return 3 * ttl }

// LivenessVerdict is the judgement of the liveness property on one run.
type LivenessVerdict struct {
	Judged  bool // the scenario records property = "liveness"
	Starved bool // a client waited longer than the limit
	check.Starvation
}

// JudgeLiveness judges res against the liveness property, as explore does
// (check.Starved, counting from model.HealedBy of the run's faults), when
// the scenario records property = "liveness": within its liveness_limit,
// or DefaultLivenessLimit of its TTL. For any other property the verdict
// is not Judged.
func (s *Scenario) JudgeLiveness(res model.Result) LivenessVerdict {
	if s.Property != Liveness {
		return LivenessVerdict{}
	}
	limit := s.LivenessLimit
	if limit == 0 {
		limit = DefaultLivenessLimit(s.Config.Lock.TTL)
	}
	w, bad := res.Starved(limit)
	return LivenessVerdict{Judged: true, Starved: bad, Starvation: w}
}
