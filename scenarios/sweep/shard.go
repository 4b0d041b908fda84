package sweep

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is a deterministic slice of a sweep's points, for running one sweep
// on several machines: shard K of N (1 ≤ K ≤ N, 1-based) runs the points
// whose index i has i mod N = K−1. The zero Shard is the whole sweep.
type Shard struct {
	K, N int
}

// IsZero reports whether sh is the whole sweep given without --shard.
func (sh Shard) IsZero() bool { return sh.N == 0 }

func (sh Shard) norm() Shard {
	if sh.N == 0 {
		return Shard{K: 1, N: 1}
	}
	return sh
}

// String is "K/N" ("1/1" for the zero Shard).
func (sh Shard) String() string {
	sh = sh.norm()
	return fmt.Sprintf("%d/%d", sh.K, sh.N)
}

// Count is the number of the sweep's points in the shard.
func (sh Shard) Count(points int) int {
	sh = sh.norm()
	if sh.K > points {
		return 0
	}
	return (points-sh.K)/sh.N + 1
}

// Point is the sweep index of the shard's j-th point (0-based).
func (sh Shard) Point(j int) int {
	sh = sh.norm()
	return sh.K - 1 + j*sh.N
}

// Of is the shard (1-based K) that point i belongs to among n shards.
func Of(i, n int) int { return i%n + 1 }

// ParseShard reads --shard: "K/N" with 1 ≤ K ≤ N, or "auto", which takes
// the shard from the environment (getenv is os.Getenv in the command):
//
//   - SLURM job arrays: SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN (0 if
//     unset), SLURM_ARRAY_TASK_STEP (1 if unset) and SLURM_ARRAY_TASK_COUNT:
//     K = (TASK_ID − TASK_MIN)/STEP + 1, N = TASK_COUNT. So --array=0-9,
//     --array=1-10 and --array=0-18:2 all make shards 1/10 … 10/10.
//   - Kubernetes indexed Jobs: JOB_COMPLETION_INDEX (0-based) and
//     REDLOCKSIM_SHARDS, which the Job must set to its completions
//     (Kubernetes does not export that count): K = index + 1,
//     N = REDLOCKSIM_SHARDS.
//
// SLURM wins when both are set.
func ParseShard(arg string, getenv func(string) string) (Shard, error) {
	if arg == "auto" {
		return autoShard(getenv)
	}
	k, n, ok := strings.Cut(arg, "/")
	K, err1 := strconv.Atoi(k)
	N, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard %q: want K/N, like 2/8 (K counts from 1), or auto", arg)
	}
	return checkShard(K, N, "--shard "+arg)
}

func checkShard(K, N int, what string) (Shard, error) {
	if N < 1 || K < 1 || K > N {
		return Shard{}, fmt.Errorf("%s: want 1 ≤ K ≤ N, got shard %d of %d (K counts from 1)", what, K, N)
	}
	return Shard{K: K, N: N}, nil
}

func autoShard(getenv func(string) string) (Shard, error) {
	num := func(name string, def int) (int, error) {
		v := getenv(name)
		if v == "" {
			if def >= 0 {
				return def, nil
			}
			return 0, fmt.Errorf("--shard auto: %s is not set", name)
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return 0, fmt.Errorf("--shard auto: %s=%q is not an integer", name, v)
		}
		return n, nil
	}
	if getenv("SLURM_ARRAY_TASK_ID") != "" {
		id, err := num("SLURM_ARRAY_TASK_ID", -1)
		if err != nil {
			return Shard{}, err
		}
		lo, err := num("SLURM_ARRAY_TASK_MIN", 0)
		if err != nil {
			return Shard{}, err
		}
		step, err := num("SLURM_ARRAY_TASK_STEP", 1)
		if err != nil {
			return Shard{}, err
		}
		count, err := num("SLURM_ARRAY_TASK_COUNT", -1)
		if err != nil {
			return Shard{}, err
		}
		if step < 1 || (id-lo)%step != 0 {
			return Shard{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID %d is not TASK_MIN %d plus a multiple of TASK_STEP %d", id, lo, step)
		}
		return checkShard((id-lo)/step+1, count, fmt.Sprintf("--shard auto (SLURM_ARRAY_TASK_ID=%d, TASK_MIN=%d, TASK_STEP=%d, TASK_COUNT=%d)", id, lo, step, count))
	}
	if getenv("JOB_COMPLETION_INDEX") != "" {
		idx, err := num("JOB_COMPLETION_INDEX", -1)
		if err != nil {
			return Shard{}, err
		}
		n, err := num("REDLOCKSIM_SHARDS", -1)
		if err != nil {
			return Shard{}, fmt.Errorf("%v: set it to the Job's completions (Kubernetes does not export that count)", err)
		}
		return checkShard(idx+1, n, fmt.Sprintf("--shard auto (JOB_COMPLETION_INDEX=%d, REDLOCKSIM_SHARDS=%d)", idx, n))
	}
	return Shard{}, fmt.Errorf("--shard auto: neither SLURM_ARRAY_TASK_ID (a SLURM job array) nor JOB_COMPLETION_INDEX (a Kubernetes indexed Job) is set; give --shard K/N")
}
