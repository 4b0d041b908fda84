package harness

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/etcd"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/story"
)

func needEtcd(t *testing.T) { t.Helper(); proctest.Need(t, etcd.Binary, etcd.Package) }

// Jepsen's etcd lock test for real: a real 3-member etcd 3.4 cluster, five
// client processes taking etcd's own lock recipe, each paused (SIGSTOP) in
// turn past its 2 s lease. Scale 2 is the largest at which the TTL stays
// whole seconds (1 s), which is all etcd grants.
func TestRealConsensusLeasePauses(t *testing.T) {
	needEtcd(t)
	sc, res := runReal(t, "consensus-lease-pauses", 2)
	requireContract(t, sc, res)
	assert.Contains(t, res.Clients, "etcd clientv3")
	assert.Contains(t, res.Notes, LessorNote(&sc.Config, res.Scale), "the note says what store.lease_check_every etcd's lessor is")
	// Every hold carries its lock key's revision, a distinct one, and a
	// hold that began later carries a higher one: the fencing token etcd
	// gives. The one exception is real, not noise: a client frozen between
	// etcd's grant and its own report of it (SIGSTOP while the reply is in
	// flight) reports the hold only when it resumes, after a later holder
	// with a higher revision; the checker sees its belief start late. Such
	// an inversion must then follow a resume of that client.
	holds := slices.Clone(res.History.Holds)
	slices.SortFunc(holds, func(a, b check.Hold) int { return cmp.Compare(a.Start, b.Start) })
	seen := map[uint64]int{}
	var top check.Hold
	for _, h := range holds {
		require.NotZero(t, h.Token, "hold %d of %s has no revision", h.ID, h.Client)
		if id, dup := seen[h.Token]; dup {
			t.Errorf("holds %d and %d both carry revision %d", id, h.ID, h.Token)
		}
		seen[h.Token] = h.ID
		if h.Token > top.Token {
			top = h
			continue
		}
		resumed := slices.ContainsFunc(res.History.Log, func(e check.Event) bool {
			return e.Kind == story.Resumes && e.Actor == h.Client && e.At >= top.Start && e.At <= h.Start
		})
		if !resumed {
			t.Errorf("hold %d of %s from %v: revision %d, below %d of hold %d from %v, and %s did not resume in between; want increasing",
				h.ID, h.Client, h.Start, h.Token, top.Token, top.ID, top.Start, h.Client)
		}
	}
}

func TestLeaseScale(t *testing.T) {
	cfg := load(t, "consensus-lease-pauses").Config // TTL 2 s
	for _, tc := range []struct {
		want, got float64
	}{
		{1, leaseScale(&cfg, 1)},
		{1, leaseScale(&cfg, 1.9)},
		{2, leaseScale(&cfg, 2)},
		{2, leaseScale(&cfg, 3.75)},
		{2, leaseScale(&cfg, 100)},
	} {
		assert.Equal(t, tc.want, tc.got)
	}
	assert.NoError(t, leaseScaleError(&cfg, 2))
	err := leaseScaleError(&cfg, 3)
	require.Error(t, err)
	assert.Equal(t, "--scale 3 makes lock.ttl 666.666667ms, but etcd grants leases in whole seconds only (scales that do: 2, 1)", err.Error())
	_, err = Run(context.Background(), cfg, Options{Scale: 4, Client: []string{clientBinary, "real-client"}})
	var refused *RefusedError
	require.True(t, errors.As(err, &refused), "got %v", err)

	redlock := load(t, "gc-pause").Config
	sys := systems[redlock.Lock.Algorithm]
	assert.Equal(t, 3.5, sys.fitScale(&redlock, 3.5), "the scale of a Redlock scenario is left alone")
	assert.NoError(t, sys.scaleError(&redlock, 3.5))
}

func TestRefusesStoreNetworkFaults(t *testing.T) {
	cfg := load(t, "consensus-lease-pauses").Config
	cfg.Faults = append(cfg.Faults,
		model.Fault{Kind: model.Cut, At: time.Second, Target: "c1", To: "store"},
		model.Fault{Kind: model.Spike, At: time.Second, For: time.Second, By: time.Second},
		model.Fault{Kind: model.Spike, At: time.Second, For: time.Second, By: time.Second, Target: "c1", To: "resource"})
	refused, _ := Refusals(&cfg)
	require.Len(t, refused, 2, "the cut and the wildcard spike; the spike to the resource runs")
	assert.Contains(t, refused[0].Error(), "cut fault with the lease lock")
	assert.Contains(t, refused[1].Error(), "spike fault that may reach the store")
}

func TestRefusesAnElection(t *testing.T) {
	cfg := load(t, "consensus-lease-pauses").Config
	cfg.Faults = append(cfg.Faults, model.Fault{Kind: model.Election, At: time.Second, For: time.Second})
	refused, _ := Refusals(&cfg)
	require.Len(t, refused, 1)
	assert.Contains(t, refused[0].Error(), "election fault")
}

// The note turns etcd's 500 ms of wall time into scenario time at the
// run's scale, and says what the scenario models.
func TestLessorNote(t *testing.T) {
	cfg := load(t, "consensus-lease-pauses").Config
	assert.Equal(t, `etcd's lessor looks for expired leases every 500ms of wall time (lease/lessor.go runLoop), 1s of scenario time at scale 2; `+
		`the scenario's store acts on each expiry exactly at it (store.lease_check_every = "0s"; --set store.lease_check_every=1s models etcd's)`,
		LessorNote(&cfg, 2))
	cfg.Store.LeaseCheckEvery = 750 * time.Millisecond
	assert.Equal(t, `etcd's lessor looks for expired leases every 500ms of wall time (lease/lessor.go runLoop), 500ms of scenario time at scale 1; `+
		`the scenario's store looks every 750ms (store.lease_check_every)`,
		LessorNote(&cfg, 1))
	assert.Equal(t, 375*time.Millisecond, Scale(cfg, 2).Store.LeaseCheckEvery, "scaled with the scenario's other times")
	_, ok := systems[cfg.Lock.Algorithm].(scaleNoter)
	assert.True(t, ok, "the lease lock's system notes it")
	_, ok = systems[load(t, "gc-pause").Config.Lock.Algorithm].(scaleNoter)
	assert.False(t, ok, "Redis has no lessor")
}
