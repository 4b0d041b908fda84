package etcd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

// Binary and Package name the etcd server and the Debian package that
// provides it.
const (
	Binary  = "etcd"
	Package = "etcd-server"
)

// Config configures a cluster. The zero value is etcd's defaults with 3
// members.
type Config struct {
	Members int // 0 means 3; an odd number, so that a majority is clear
	// HeartbeatInterval and ElectionTimeout are etcd's flags of the same
	// names; zero means etcd's defaults, 100 ms and 1 s.
	HeartbeatInterval time.Duration
	ElectionTimeout   time.Duration
	// Ready bounds the whole start, every member serving and one write
	// committed; 0 means 30 s.
	Ready time.Duration
}

func (c Config) withDefaults() Config {
	if c.Members == 0 {
		c.Members = 3
	}
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = 100 * time.Millisecond
	}
	if c.ElectionTimeout == 0 {
		c.ElectionTimeout = time.Second
	}
	if c.Ready == 0 {
		c.Ready = 30 * time.Second
	}
	return c
}

// Validate reports the first thing wrong with c, or nil.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Members < 1 || c.Members%2 == 0:
		return fmt.Errorf("etcd cluster of %d members; want an odd number >= 1", c.Members)
	case c.HeartbeatInterval < time.Millisecond || c.HeartbeatInterval%time.Millisecond != 0:
		return fmt.Errorf("etcd heartbeat interval %v; want whole milliseconds >= 1ms", c.HeartbeatInterval)
	case c.ElectionTimeout < 5*c.HeartbeatInterval || c.ElectionTimeout%time.Millisecond != 0:
		return fmt.Errorf("etcd election timeout %v; want whole milliseconds >= 5 heartbeat intervals (%v)", c.ElectionTimeout, 5*c.HeartbeatInterval)
	case c.Ready < 0:
		return fmt.Errorf("etcd readiness deadline %v; want >= 0", c.Ready)
	}
	return nil
}

// MinTTL is the shortest lease the cluster grants: etcd raises a shorter
// TTL to 1.5 election timeouts, rounded up to whole seconds.
func (c Config) MinTTL() time.Duration {
	c = c.withDefaults()
	ticks := 3 * int64(c.ElectionTimeout/c.HeartbeatInterval) / 2
	return time.Duration(math.Ceil((time.Duration(ticks) * c.HeartbeatInterval).Seconds())) * time.Second
}

// ValidTTL reports why ttl cannot be an etcd lease TTL on cluster c, or
// nil: leases are whole seconds, and no shorter than MinTTL.
func (c Config) ValidTTL(ttl time.Duration) error {
	if ttl%time.Second != 0 || ttl <= 0 {
		return fmt.Errorf("lease TTL %v is not a positive whole number of seconds, the only TTLs etcd grants", ttl)
	}
	if min := c.MinTTL(); ttl < min {
		return fmt.Errorf("lease TTL %v is below %v, the shortest this cluster grants (1.5 election timeouts of %v, rounded up to seconds)", ttl, min, c.withDefaults().ElectionTimeout)
	}
	return nil
}

// ConfigFor is the cluster configuration for leases of ttl: etcd's
// defaults where they grant ttl, else the defaults' timings shortened (a
// 50 ms heartbeat and a 600 ms election timeout) so that a 1 s lease is
// granted as asked rather than raised to 2 s. ttl must be whole seconds.
func ConfigFor(ttl time.Duration) (Config, error) {
	var c Config
	if err := c.ValidTTL(ttl); err == nil {
		return c, nil
	}
	c = Config{HeartbeatInterval: 50 * time.Millisecond, ElectionTimeout: 600 * time.Millisecond}
	if err := c.ValidTTL(ttl); err != nil {
		return Config{}, err
	}
	return c, nil
}

// Member is one etcd process.
type Member struct {
	*proc.Server
	PeerAddr string // 127.0.0.1:port of its peer URL
	ID       uint64 // its raft member id, known once the cluster is ready
}

// Cluster is a running etcd cluster.
type Cluster struct {
	Members []*Member
	procs   proc.Servers // the members as processes: started, waited for, signalled
	cfg     Config
}

// Start starts a cluster of cfg.Members members in g and waits until it is
// ready. On failure, the members it started stay in g, whose Close ends
// them. A missing etcd binary is a *proc.MissingError naming etcd-server.
func Start(ctx context.Context, g *proc.Group, cfg Config) (*Cluster, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	bin, err := proc.LookPath(Binary, Package)
	if err != nil {
		return nil, err
	}
	c := &Cluster{cfg: cfg, procs: proc.Servers{Program: "etcd", Store: "etcd cluster"}}
	var initial []string
	for i := range cfg.Members {
		s, err := c.procs.Add(g, "n"+strconv.Itoa(i+1))
		if err != nil {
			return nil, err
		}
		pp, err := proc.FreePort()
		if err != nil {
			return nil, err
		}
		m := &Member{Server: s, PeerAddr: "127.0.0.1:" + strconv.Itoa(pp)}
		c.Members = append(c.Members, m)
		initial = append(initial, m.Name+"=http://"+m.PeerAddr)
	}
	// A token unique to this cluster, so that a member of another run's
	// cluster that somehow reached these ports is refused.
	token := "redlocksim-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	for _, m := range c.Members {
		args := []string{
			"--name", m.Name,
			"--data-dir", m.Dir,
			"--listen-client-urls", "http://" + m.ClientAddr,
			"--advertise-client-urls", "http://" + m.ClientAddr,
			"--listen-peer-urls", "http://" + m.PeerAddr,
			"--initial-advertise-peer-urls", "http://" + m.PeerAddr,
			"--initial-cluster", strings.Join(initial, ","),
			"--initial-cluster-state", "new",
			"--initial-cluster-token", token,
			"--heartbeat-interval", strconv.FormatInt(cfg.HeartbeatInterval.Milliseconds(), 10),
			"--election-timeout", strconv.FormatInt(cfg.ElectionTimeout.Milliseconds(), 10),
			"--logger", "zap",
			"--log-level", "warn",
		}
		if err := c.procs.Start(g, m.Server, proc.Spec{Path: bin, Args: args}); err != nil {
			return nil, err
		}
	}
	if err := c.waitReady(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// waitReady waits for every member's client port, then for every member's
// status naming a leader and one committed write, all within cfg.Ready.
func (c *Cluster) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Ready)
	defer cancel()
	if err := c.procs.WaitListening(ctx); err != nil {
		return err
	}
	deadline, _ := ctx.Deadline()
	cli, err := c.client(time.Until(deadline))
	if err != nil {
		return err
	}
	defer cli.Close()
	err = c.procs.WaitEach(ctx, "reporting a leader", func(i int) error {
		m := c.Members[i]
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		st, err := cli.Status(sctx, m.ClientAddr)
		if err != nil {
			return err
		}
		if st.Leader == 0 {
			return errors.New("no leader yet")
		}
		m.ID = st.Header.MemberId
		return nil
	})
	if err != nil {
		return err
	}
	return c.procs.WaitWrite(ctx, func() error {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_, err := cli.Put(pctx, "/redlocksim/ready", "1")
		return err
	})
}

// client is a clientv3 client of every member, logging nothing.
func (c *Cluster) client(dial time.Duration) (*clientv3.Client, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   c.Endpoints(),
		DialTimeout: max(dial, time.Second),
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd client of %v: %w", c.Endpoints(), err)
	}
	return cli, nil
}

// Endpoints are the members' client addresses (host:port), in member
// order: what a client dials, directly or through its proxies.
func (c *Cluster) Endpoints() []string { return c.procs.Endpoints() }

// Signal sends sig to every member, in member order: SIGSTOP and SIGCONT
// pause and resume the whole store.
func (c *Cluster) Signal(sig syscall.Signal) error { return c.procs.Signal(sig) }

// Config is the configuration the cluster runs with, defaults filled in.
func (c *Cluster) Config() Config { return c.cfg }

// Member returns the member named name (n1, n2, ...).
func (c *Cluster) Member(name string) (*Member, error) {
	for _, m := range c.Members {
		if m.Name == name {
			return m, nil
		}
	}
	return nil, fmt.Errorf("etcd cluster has no member %q (it has n1..n%d)", name, len(c.Members))
}

// Pause stops member name with SIGSTOP, as Jepsen's nemesis does: it stops
// answering clients and peers at once, its timers included.
func (c *Cluster) Pause(name string) error {
	m, err := c.Member(name)
	if err != nil {
		return err
	}
	return m.Proc().Signal(syscall.SIGSTOP)
}

// Resume continues a paused member with SIGCONT.
func (c *Cluster) Resume(name string) error {
	m, err := c.Member(name)
	if err != nil {
		return err
	}
	return m.Proc().Signal(syscall.SIGCONT)
}

// Leader asks the members in order for the current leader and returns its
// name. A paused member does not answer; the next is asked after a
// second. It fails when no answering member knows a leader.
func (c *Cluster) Leader(ctx context.Context) (string, error) {
	cli, err := c.client(time.Second)
	if err != nil {
		return "", err
	}
	defer cli.Close()
	var errs []error
	for _, m := range c.Members {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		st, err := cli.Status(sctx, m.ClientAddr)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m.Name, err))
			continue
		}
		for _, l := range c.Members {
			if l.ID != 0 && l.ID == st.Leader {
				return l.Name, nil
			}
		}
		errs = append(errs, fmt.Errorf("%s: leader id %x is none of the members", m.Name, st.Leader))
	}
	return "", fmt.Errorf("no etcd member names a leader: %w", errors.Join(errs...))
}
