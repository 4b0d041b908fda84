package etcd

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proxy"
)

// needEtcd skips a test when etcd is not installed, naming the Debian
// package, and fails it instead in CI (CI=true).
func needEtcd(t *testing.T) {
	t.Helper()
	proctest.Need(t, Binary, Package)
}

// startCluster starts a cluster whose every process and directory dies
// with the test.
func startCluster(t *testing.T, cfg Config) (*Cluster, *proc.Group) {
	t.Helper()
	needEtcd(t)
	g := proc.NewGroup()
	t.Cleanup(func() { g.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Start(ctx, g, cfg)
	require.NoError(t, err)
	return c, g
}

func locker(t *testing.T, c *Cluster, ttl time.Duration) *Locker {
	t.Helper()
	l, err := NewLocker(LockConfig{Endpoints: c.Endpoints(), Key: "/lock", TTL: ttl})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// One cluster for the lock tests: starting one takes seconds.
func TestCluster(t *testing.T) {
	c, g := startCluster(t, Config{})
	require.Len(t, c.Members, 3)
	for _, m := range c.Members {
		if m.ID == 0 || m.Proc().Exited() {
			t.Fatalf("member %s: id %x, exited %v; want a running member with an id", m.Name, m.ID, m.Proc().Exited())
		}
	}

	t.Run("lock-is-exclusive-and-tokens-grow", func(t *testing.T) {
		a, b := locker(t, c, 2*time.Second), locker(t, c, 2*time.Second)
		ctx := context.Background()
		ha, err := a.Lock(ctx)
		require.NoError(t, err)
		if ha.Token == 0 || !strings.HasPrefix(ha.Key, "/lock/") {
			t.Fatalf("hold: token %d key %q; want a revision and a key under /lock/", ha.Token, ha.Key)
		}
		// b waits behind a: its Lock does not return while a holds.
		wctx, cancel := context.WithTimeout(ctx, 700*time.Millisecond)
		_, err = b.Lock(wctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("second Lock while held: err %v; want it to wait until its deadline", err)
		}
		got := make(chan *Hold, 1)
		go func() {
			h, err := b.Lock(ctx)
			if err != nil {
				t.Errorf("b.Lock after a's release: %v", err)
			}
			got <- h
		}()
		time.Sleep(200 * time.Millisecond)
		select {
		case <-got:
			t.Fatalf("b got the lock while a held it")
		default:
		}
		require.NoError(t, ha.Release(ctx))
		select {
		case <-ha.Lost():
		default:
			t.Errorf("a's hold not over after Release")
		}
		var hb *Hold
		select {
		case hb = <-got:
		case <-time.After(10 * time.Second):
			t.Fatalf("b did not get the lock within 10s of a's release")
		}
		require.NotNil(t, hb)
		if hb.Token <= ha.Token {
			t.Errorf("b's token %d; want above a's %d (the revision is the fencing token)", hb.Token, ha.Token)
		}
		require.NoError(t, hb.Release(ctx))
		if err := hb.Release(ctx); err == nil {
			t.Errorf("a second Release: no error")
		}
	})

	t.Run("hold-is-lost-when-the-lease-goes", func(t *testing.T) {
		l := locker(t, c, 2*time.Second)
		ctx := context.Background()
		h, err := l.Lock(ctx)
		require.NoError(t, err)
		// Kept alive every TTL/3: the hold outlives its TTL.
		select {
		case <-h.Lost():
			t.Fatalf("hold lost within 3s though kept alive")
		case <-time.After(3 * time.Second):
		}
		// The grant's deadline has passed; keep-alive replies moved it on.
		// (clientv3 sends one TTL/3 after a reply, checked on a 500ms
		// loop, so up to 1.17s apart with a 2s TTL.)
		if d := time.Until(h.Deadline()); d <= 0 {
			t.Errorf("deadline %v ago after 3s of keep-alives; want it in the future", -d)
		}
		// Another client revokes the lease (as expiry would delete it).
		other := locker(t, c, 2*time.Second)
		_, err = other.cli.Revoke(ctx, h.Lease)
		require.NoError(t, err)
		select {
		case <-h.Lost():
		case <-time.After(4 * time.Second):
			t.Fatalf("hold not lost 4s after its lease was revoked (TTL 2s)")
		}
	})

	t.Run("hold-ends-at-the-lease-deadline-when-cut-off", func(t *testing.T) {
		// The client reaches every member through a fault proxy; cutting
		// them all stops the keep-alive replies, and the hold must end at
		// the deadline the last reply gave, not a poll later.
		ps := proxy.New(nil, 1)
		defer ps.Close()
		var eps []string
		for _, m := range c.Members {
			addr, err := ps.Link(m.Name, m.ClientAddr)
			require.NoError(t, err)
			eps = append(eps, addr)
		}
		l, err := NewLocker(LockConfig{Endpoints: eps, Key: "/lock", TTL: 2 * time.Second})
		require.NoError(t, err)
		defer l.Close()
		h, err := l.Lock(context.Background())
		require.NoError(t, err)
		time.Sleep(time.Second) // a keep-alive or two
		for _, m := range c.Members {
			require.NoError(t, ps.Cut(m.Name, proxy.Both))
		}
		select {
		case <-h.Lost():
		case <-time.After(5 * time.Second):
			t.Fatalf("hold not lost 5s after the cut (TTL 2s)")
		}
		lost := time.Now()
		// The deadline the last reply gave, read once the hold is over: a
		// reply that passed the proxy just before the cut may still have
		// moved it after the cut.
		deadline := h.Deadline()
		if lost.Before(deadline) {
			t.Errorf("hold lost %v before its deadline", deadline.Sub(lost))
		}
		// clientv3 alone notices on a one-second poll; the hold's timer is
		// due at the deadline (the slack is for a loaded machine).
		if late := lost.Sub(deadline); late > 500*time.Millisecond {
			t.Errorf("hold lost %v after its deadline; want within 500ms", late)
		}
		for _, m := range c.Members {
			require.NoError(t, ps.Heal(m.Name))
		}
	})

	t.Run("pause-the-leader", func(t *testing.T) {
		ctx := context.Background()
		leader, err := c.Leader(ctx)
		require.NoError(t, err)
		require.NoError(t, c.Pause(leader))
		m, _ := c.Member(leader)
		require.Eventually(t, func() bool { return procState(m.Proc().Pid()) == "T" },
			5*time.Second, 10*time.Millisecond, "paused %s never shows state T (stopped)", leader)
		// The others elect a new leader, and the lock works through them.
		var next string
		require.Eventually(t, func() bool {
			next, err = c.Leader(ctx)
			return err == nil && next != leader
		}, 20*time.Second, 100*time.Millisecond, "no new leader while %s is paused", leader)
		l := locker(t, c, 2*time.Second)
		lctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		h, err := l.Lock(lctx)
		cancel()
		require.NoError(t, err, "lock with %s paused", leader)
		require.NoError(t, h.Release(ctx))
		require.NoError(t, c.Resume(leader))
		require.Eventually(t, func() bool { return procState(m.Proc().Pid()) != "T" },
			5*time.Second, 10*time.Millisecond, "resumed %s stays stopped", leader)
	})

	t.Run("pause-the-whole-store", func(t *testing.T) {
		require.NoError(t, c.Signal(syscall.SIGSTOP))
		for _, m := range c.Members {
			require.Eventually(t, func() bool { return procState(m.Proc().Pid()) == "T" },
				5*time.Second, 10*time.Millisecond, "%s not stopped", m.Name)
		}
		l := locker(t, c, 2*time.Second)
		lctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, err := l.Lock(lctx)
		cancel()
		if err == nil {
			t.Fatalf("lock with the whole store paused: no error; want a timeout")
		}
		require.NoError(t, c.Signal(syscall.SIGCONT))
		// Every member wakes with its election timer long past due, so
		// the first proposals may meet an election in progress and fail
		// with "etcdserver: request timed out", a transient error a
		// client retries; the store must serve the lock within 20 s.
		var h *Hold
		give := time.Now().Add(20 * time.Second)
		for {
			lctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
			h, err = l.Lock(lctx)
			cancel()
			if err == nil || time.Now().After(give) {
				break
			}
			t.Logf("lock after the store resumed: %v (retrying)", err)
			time.Sleep(200 * time.Millisecond)
		}
		require.NoError(t, err, "lock after the store resumed, retried for 20s")
		require.NoError(t, h.Release(context.Background()))
	})

	t.Run("errors", func(t *testing.T) {
		if err := c.Pause("n9"); err == nil || err.Error() != `etcd cluster has no member "n9" (it has n1..n3)` {
			t.Errorf("Pause(n9): %v", err)
		}
		for _, tc := range []struct {
			cfg  LockConfig
			want string
		}{
			{LockConfig{Key: "/l", TTL: time.Second}, "etcd lock: no endpoints"},
			{LockConfig{Endpoints: c.Endpoints(), TTL: time.Second}, "etcd lock: empty key"},
			{LockConfig{Endpoints: c.Endpoints(), Key: "/l", TTL: 1500 * time.Millisecond}, "etcd lock: lease TTL 1.5s is not a positive whole number of seconds, the only TTLs etcd grants"},
		} {
			if _, err := NewLocker(tc.cfg); err == nil || err.Error() != tc.want {
				t.Errorf("NewLocker(%+v): %v; want %q", tc.cfg, err, tc.want)
			}
		}
	})

	// No process survives the group, and no data directory is left.
	var pids []int
	var dirs []string
	for _, m := range c.Members {
		pids = append(pids, m.Proc().Pid())
		dirs = append(dirs, m.Dir)
	}
	require.NoError(t, c.Pause("n1")) // a stopped member must die too
	require.NoError(t, g.Close())
	for i, pid := range pids {
		if alive(pid) {
			t.Errorf("member pid %d survived Close", pid)
		}
		if _, err := os.Stat(dirs[i]); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("data directory %s left behind (stat: %v)", dirs[i], err)
		}
	}
}

// procState is the one-letter state of pid (R, S, T, Z, ...).
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	return s[i+2 : i+3]
}

func TestConfig(t *testing.T) {
	cases := []struct {
		cfg  Config
		want string
	}{
		{Config{Members: 2}, "etcd cluster of 2 members; want an odd number >= 1"},
		{Config{HeartbeatInterval: 1500 * time.Microsecond}, "etcd heartbeat interval 1.5ms; want whole milliseconds >= 1ms"},
		{Config{ElectionTimeout: 400 * time.Millisecond}, "etcd election timeout 400ms; want whole milliseconds >= 5 heartbeat intervals (500ms)"},
		{Config{}, ""},
	}
	for _, tc := range cases {
		err := tc.cfg.Validate()
		if (err == nil && tc.want != "") || (err != nil && err.Error() != tc.want) {
			t.Errorf("Validate(%+v): %v; want %q", tc.cfg, err, tc.want)
		}
	}
	// etcd's rule: 1.5 election timeouts, rounded up to whole seconds.
	if got := (Config{}).MinTTL(); got != 2*time.Second {
		t.Errorf("MinTTL with etcd's defaults: %v; want 2s", got)
	}
	fast := Config{HeartbeatInterval: 20 * time.Millisecond, ElectionTimeout: 200 * time.Millisecond}
	if got := fast.MinTTL(); got != time.Second {
		t.Errorf("MinTTL with a 200ms election timeout: %v; want 1s", got)
	}
	if err := (Config{}).ValidTTL(time.Second); err == nil || err.Error() != "lease TTL 1s is below 2s, the shortest this cluster grants (1.5 election timeouts of 1s, rounded up to seconds)" {
		t.Errorf("ValidTTL(1s): %v", err)
	}
	if err := fast.ValidTTL(time.Second); err != nil {
		t.Errorf("ValidTTL(1s) on the fast cluster: %v", err)
	}
	if err := fast.ValidTTL(1200 * time.Millisecond); err == nil {
		t.Errorf("ValidTTL(1.2s): no error")
	}
	for _, tc := range []struct {
		ttl     time.Duration
		min     time.Duration // the MinTTL of the config chosen
		wantErr string
	}{
		{2 * time.Second, 2 * time.Second, ""},
		{30 * time.Second, 2 * time.Second, ""},
		{time.Second, time.Second, ""},
		{500 * time.Millisecond, 0, "lease TTL 500ms is not a positive whole number of seconds, the only TTLs etcd grants"},
	} {
		c, err := ConfigFor(tc.ttl)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("ConfigFor(%v): %v; want %q", tc.ttl, err, tc.wantErr)
			}
			continue
		}
		require.NoError(t, err)
		require.NoError(t, c.Validate())
		if got := c.MinTTL(); got != tc.min {
			t.Errorf("ConfigFor(%v).MinTTL() = %v; want %v", tc.ttl, got, tc.min)
		}
	}
}
