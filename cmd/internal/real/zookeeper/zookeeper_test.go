package zookeeper

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
)

// startEnsemble starts a 3-server ensemble for the test, or skips naming
// the missing package (fails under CI=true).
func startEnsemble(t *testing.T, cfg Config) *Ensemble {
	t.Helper()
	if _, _, err := Find(); err != nil {
		proctest.Unavailable(t, err)
	}
	g := proc.NewGroup()
	t.Cleanup(func() { g.Close() })
	began := time.Now()
	e, err := Start(context.Background(), g, cfg)
	require.NoError(t, err)
	t.Logf("ensemble of %d ready in %v", len(e.Servers), time.Since(began))
	return e
}

// warmLocker is a Locker of the lock "/lock" on e with session timeout
// timeout, its session open; the test closes it.
func warmLocker(ctx context.Context, t *testing.T, e *Ensemble, timeout time.Duration) *Locker {
	t.Helper()
	l, err := NewLocker(LockConfig{Servers: e.Endpoints(), Path: "/lock", SessionTimeout: timeout})
	require.NoError(t, err)
	require.NoError(t, l.Warm(ctx))
	t.Cleanup(func() { l.Close() })
	return l
}

func TestConfigRefusesWhatZooKeeperCannotRun(t *testing.T) {
	assert.ErrorContains(t, Config{Servers: 2}.Validate(), "odd number")
	assert.ErrorContains(t, Config{Tick: 1500 * time.Microsecond}.Validate(), "whole milliseconds")
	c := Config{Tick: 500 * time.Millisecond}
	lo, hi := c.SessionBounds()
	assert.Equal(t, time.Second, lo)
	assert.Equal(t, 10*time.Second, hi)
	assert.NoError(t, c.ValidSessionTimeout(time.Second))
	assert.ErrorContains(t, c.ValidSessionTimeout(999*time.Millisecond), "2 to 20 ticks")
	assert.ErrorContains(t, c.ValidSessionTimeout(11*time.Second), "2 to 20 ticks")
}

func TestSortBySequenceIgnoresTheProtectionPrefix(t *testing.T) {
	kids := []string{"_c_ffff-lock-0000000003", "_c_0000-lock-0000000010", "_c_aaaa-lock-0000000001"}
	sortBySequence(kids)
	assert.Equal(t, []string{"_c_aaaa-lock-0000000001", "_c_ffff-lock-0000000003", "_c_0000-lock-0000000010"}, kids)
}

// TestRealZooKeeperLock: on a real ensemble, the second client waits
// behind the first's node and holds once it is deleted, with a higher
// czxid; a holder whose connection closes (its session closed on the
// servers, its node deleted, so the waiter holds) stops believing at
// LOST, a session timeout after SUSPENDED, as Curator posts it when the
// servers do not answer.
func TestRealZooKeeperLock(t *testing.T) {
	e := startEnsemble(t, Config{Tick: 200 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := warmLocker(ctx, t, e, time.Second), warmLocker(ctx, t, e, time.Second)
	ha, err := a.Lock(ctx, 1)
	require.NoError(t, err)
	got := make(chan *Hold, 1)
	go func() {
		hb, err := b.Lock(ctx, 2)
		assert.NoError(t, err)
		got <- hb
	}()
	select {
	case <-got:
		t.Fatal("b holds while a does")
	case <-time.After(500 * time.Millisecond):
	}
	require.NoError(t, ha.Release(ctx))
	<-ha.Lost()
	assert.Equal(t, "released", ha.LostWhy())
	hb := <-got
	require.NotNil(t, hb)
	assert.Greater(t, hb.Token, ha.Token, "the later node's czxid is higher")

	// a takes the lock again behind b; then b's connection closes: the
	// servers delete its node and a holds.
	go func() {
		h, err := a.Lock(ctx, 3)
		assert.NoError(t, err)
		got <- h
	}()
	time.Sleep(200 * time.Millisecond)
	b.mu.Lock()
	sess := b.s
	b.mu.Unlock()
	sess.conn.Close()
	select {
	case h := <-got:
		require.NotNil(t, h)
		assert.Greater(t, h.Token, hb.Token)
	case <-ctx.Done():
		t.Fatal("a never got the lock after b's session ended")
	}
	select {
	case <-hb.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("b still believes")
	}
	assert.Contains(t, hb.LostWhy(), "LOST: no answer for a session timeout after SUSPENDED")
}
