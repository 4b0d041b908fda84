package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proxy"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/network"
)

// sentinelSystem is the failover lock's: the scenario's nodes as a master
// and its replicas (REPLICAOF, each lagging link through a proxy of its
// own), and one redis-sentinel that promotes a replica when the master is
// down. The client asks the Sentinel for the master before each try.
type sentinelSystem struct{ redisSystem }

func (sentinelSystem) binaries() []binary {
	return []binary{{"redis-server", "redis-server"}, {"redis-sentinel", "redis-sentinel"}}
}

// refusals: none of its own; replication is what it runs.
func (sentinelSystem) refusals(*model.Config) []*RefusedError { return nil }

// SentinelTimersNote is the note on every real failover run: the model's
// Sentinel has Sentinel's one-second periods (the ping after which
// down-after counts, the INFO that shows the promotion) in scenario time,
// while a real redis-sentinel keeps them in wall time whatever the scale.
const SentinelTimersNote = "a real redis-sentinel counts down-after from its first ping (or reconnect) after the failure and announces the new master at its next INFO, " +
	"each at most a second of wall time whatever the scale, where the model's second is of scenario time, " +
	"so at scale F the real failover comes up to 2(F-1) scenario seconds later than the model's (with real --scale 1 they line up)"

func (sentinelSystem) notes(*model.Config) []string { return []string{SentinelTimersNote} }

// minimums: a real Sentinel pings once a second and takes a second or
// two to promote whatever its down-after (minDownAfter).
func (sentinelSystem) minimums(cfg *model.Config) []minimum {
	return []minimum{{"sentinel.down_after", cfg.Sentinel.DownAfter, minDownAfter}}
}

func (sentinelSystem) start(ctx context.Context, r *run) error {
	if err := r.startReplication(ctx); err != nil {
		return err
	}
	return r.startSentinel(ctx, r.bins["redis-sentinel"])
}

// connect gives the client the Sentinel's address and every node's own
// (to map the Sentinel's answer onto the client's proxied node links).
func (sentinelSystem) connect(r *run, _ string, spec *ClientSpec) error {
	spec.SentinelAddr = r.sentinelAddr
	for _, n := range r.nodes {
		spec.NodeAddrs = append(spec.NodeAddrs, n.addr())
	}
	return nil
}

func (sentinelSystem) driver(client.LockConfig) string { return DriverFailover }

// sentinelMaster is the name the Sentinel monitors the scenario's master
// under.
const sentinelMaster = "lock"

// replicationLink names the proxy link a replica's replication stream
// from its master passes through (only when the master's writes lag).
func replicationLink(replica, master string) string { return replica + ">" + master + ":replication" }

// startReplication starts the replicas of the failover lock's world: each
// replica of a master whose scenario has a replication delay connects
// through a proxy link whose master-to-replica direction is delayed by it
// (real replication is otherwise near instant); the others connect
// directly. It waits until every replica's link is up.
func (r *run) startReplication(ctx context.Context) (err error) {
	for i, n := range r.cfg.Nodes {
		if n.Redis.ReplicaOf == "" {
			continue
		}
		master := r.node(n.Redis.ReplicaOf)
		node := r.nodes[i]
		port := master.port
		mcfg := nodeConfig(r.cfg, master.name)
		if d := mcfg.Redis.ReplicationDelay; d > 0 {
			// A set of its own, which the master's crash closes: the
			// model holds a lagging write back in the master, so the
			// writes not yet shipped die with it, where bytes already
			// on a real wire would still arrive.
			set := proxy.New(nil, r.opt.Seed)
			r.replication[master.name] = append(r.replication[master.name], set)
			a, err := set.Link(replicationLink(node.name, master.name), master.addr())
			if err != nil {
				return err
			}
			port, _ = strconv.Atoi(a[strings.LastIndexByte(a, ':')+1:])
			// The lag starts once the replica has synced: the handshake's
			// round trips through a lagging link would take seconds.
			defer func() {
				if err == nil {
					err = set.SetLatency(replicationLink(node.name, master.name), proxy.Downstream, network.Constant(d))
				}
			}()
		}
		if err := node.do(ctx, "REPLICAOF", "127.0.0.1", port); err != nil {
			return fmt.Errorf("%s: REPLICAOF %s: %w", node.name, master.name, err)
		}
		c := redis.NewClient(&redis.Options{Addr: node.addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
		err = proc.WaitFor(ctx, nil, 15*time.Second, node.name+"'s replication link to "+master.name, func() error {
			info, err := c.Info(ctx, "replication").Result()
			if err != nil {
				return err
			}
			if !strings.Contains(info, "master_link_status:up") {
				return fmt.Errorf("link not up")
			}
			return nil
		})
		c.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// startSentinel starts one redis-sentinel (the model has one) monitoring
// the first node, with quorum 1, the scenario's down-after, and waits
// until it has discovered every replica.
func (r *run) startSentinel(ctx context.Context, path string) error {
	port, err := proc.FreePort()
	if err != nil {
		return err
	}
	dir, err := r.dir("sentinel")
	if err != nil {
		return err
	}
	master := r.nodes[0]
	downAfter := max(r.cfg.Sentinel.DownAfter, 100*time.Millisecond)
	conf := fmt.Sprintf(`port %d
bind 127.0.0.1
daemonize no
protected-mode no
dir %s
logfile %s
sentinel monitor %s 127.0.0.1 %d 1
sentinel down-after-milliseconds %s %d
sentinel failover-timeout %s %d
sentinel parallel-syncs %s 1
`, port, dir, filepath.Join(dir, "sentinel.log"), sentinelMaster, master.port,
		sentinelMaster, downAfter.Milliseconds(), sentinelMaster, max(3*downAfter, time.Second).Milliseconds(), sentinelMaster)
	confPath := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return err
	}
	p, err := r.g.Start(proc.Spec{Name: "sentinel (redis-sentinel)", Path: path, Args: []string{confPath}, Dir: dir})
	if err != nil {
		return err
	}
	r.sentinelAddr = "127.0.0.1:" + strconv.Itoa(port)
	c := redis.NewSentinelClient(&redis.Options{Addr: r.sentinelAddr, Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	defer c.Close()
	replicas := len(r.nodes) - 1
	return proc.WaitFor(ctx, p, 20*time.Second, fmt.Sprintf("the sentinel to see %d replicas", replicas), func() error {
		rs, err := c.Replicas(ctx, sentinelMaster).Result()
		if err != nil {
			return err
		}
		if len(rs) < replicas {
			return fmt.Errorf("sees %d replicas", len(rs))
		}
		return nil
	})
}
