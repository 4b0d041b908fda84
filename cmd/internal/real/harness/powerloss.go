package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/real/lazyfs"
	"github.com/redlocksim/redlocksim/model"
	modelredis "github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/story"
)

func init() { nodeSetups = append(nodeSetups, mountLazyfs) }

// onLazyfs reports whether node n of cfg runs on a lazyfs mount: it has
// an AOF and a power-loss fault, and this machine has FUSE. Under
// everysec the AOF's unsynced tail lives only in the page cache, so the
// power loss needs the mount (Refusals refuses the fault without FUSE).
// Under always nothing should, and the mount shows it for real rather
// than assuming it; without FUSE such a power loss runs as SIGKILL, which
// then loses the same. Nodes without a power loss keep a plain
// directory: on lazyfs every AOF write costs a FUSE round trip (about
// 0.1 ms on this machine under everysec, BenchmarkRedisSet).
func onLazyfs(cfg *model.Config, n model.NodeConfig) bool {
	if n.Redis.Persistence != modelredis.AOFEverySec && n.Redis.Persistence != modelredis.AOFAlways {
		return false
	}
	return slices.ContainsFunc(cfg.Faults, func(f model.Fault) bool {
		return f.Kind == model.PowerLoss && f.Target == n.Name
	}) && lazyfs.Available() == nil
}

// refusePowerLoss: a power loss on an everysec node needs lazyfs, which
// needs FUSE; elsewhere without lazyfs it runs as SIGKILL, which loses
// the same.
func refusePowerLoss(cfg *model.Config, f model.Fault) (*RefusedError, string) {
	n := nodeConfig(cfg, f.Target)
	if onLazyfs(cfg, n) {
		return nil, fmt.Sprintf("power-loss on %s: its data directory is a lazyfs mount; the fault SIGKILLs redis-server, drops every byte it did not fsync, and restarts it on what was synced", f.Target)
	}
	if n.Redis.Persistence == modelredis.AOFEverySec {
		return &RefusedError{What: "power-loss fault on " + f.Target + " (appendfsync everysec)",
			Reason: "the node's AOF must sit on a FUSE filesystem that drops what was not fsynced: " + lazyfs.Available().Error()}, ""
	}
	return nil, fmt.Sprintf("power-loss on %s runs as SIGKILL: with persistence %v nothing lives only in the page cache, so the two lose the same", f.Target, n.Redis.Persistence)
}

// mountLazyfs puts the data directory of a node with a power loss
// (onLazyfs) on a lazyfs mount: <dir>/disk holds what was
// synced, <dir>/mnt is the server's --dir. The run's group unmounts it
// after the server dies, on every way out of the run.
func mountLazyfs(r *run, cfg model.NodeConfig, n *redisNode) error {
	if !onLazyfs(r.cfg, cfg) {
		return nil
	}
	backing, mnt := filepath.Join(n.dir, "disk"), filepath.Join(n.dir, "mnt")
	for _, d := range []string{backing, mnt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	l, err := lazyfs.Mount(backing, mnt)
	if err != nil {
		return err
	}
	if err := r.g.Defer(l.Close); err != nil {
		return err
	}
	n.workDir, n.dir = n.dir, mnt
	if cfg.Redis.Persistence == modelredis.AOFEverySec {
		if len(r.everysec) == 0 {
			r.beforeT0 = append(r.beforeT0, r.alignFsyncs)
		}
		r.everysec = append(r.everysec, lazyNode{n: n, fs: l})
	}
	n.powerLoss = func(n *redisNode) error {
		// The server dies first, so that nothing of it writes after
		// the drop; then the page cache goes, as at a power loss.
		if err := n.crash(); err != nil {
			return err
		}
		lost, err := l.DropUnsynced()
		if err != nil {
			return fmt.Errorf("%s: drop the unsynced writes: %w", n.name, err)
		}
		r.tell(n.name, story.Remark{Text: fmt.Sprintf("the power loss drops what %d file(s) had not fsynced", lost)})
		return nil
	}
	return nil
}

// lazyNode is a node whose data directory is a lazyfs mount.
type lazyNode struct {
	n  *redisNode
	fs *lazyfs.FS
}

// fsyncPhaseKey is the key alignFsyncs writes on a lazyfs node before T0.
const fsyncPhaseKey = "redlocksim:harness:fsync-phase"

// alignFsyncs lines the run's start up with the fsyncs of the everysec
// nodes on lazyfs.
//
// The model's everysec node fsyncs every FsyncEvery from its start, which
// is T0: a write just after T0 waits a whole period. Redis 7.0 fsyncs
// from flushAppendOnlyFile when server.unixtime > server.aof_last_fsync:
// at the first write or cron tick (10 per second) after each wall second
// begins, and at once for a write in a second with no fsync yet. The
// servers start a second or more before T0, so left alone a write just
// after T0 is usually the first of its second and is fsynced at once,
// which the model's node, just started, never does.
//
// So T0 is put just after a wall second begins, and each lazyfs node
// first fsyncs in that second (a write of fsyncPhaseKey, the first of the
// second, which the lazyfs shows fsynced). Then the node is where the
// model's is at its start: its next fsync comes when the next wall second
// begins, about FsyncEvery (1 s, Redis's fixed period) after T0, and
// every wall second after that, up to a cron tick late.
func (r *run) alignFsyncs(ctx context.Context) error {
	const tries = 3
	var late time.Duration
	for range tries {
		second := time.Now().Truncate(time.Second).Add(time.Second)
		time.Sleep(time.Until(second.Add(5 * time.Millisecond)))
		for _, ln := range r.everysec {
			before := ln.fs.Syncs()
			if err := ln.n.do(ctx, "SET", fsyncPhaseKey, second.Unix()); err != nil {
				return fmt.Errorf("%s: write the fsync phase key: %w", ln.n.name, err)
			}
			deadline := time.Now().Add(500 * time.Millisecond)
			for ln.fs.Syncs() == before {
				if time.Now().After(deadline) {
					return fmt.Errorf("%s: redis-server did not fsync the first write of a wall second within 500ms", ln.n.name)
				}
				time.Sleep(time.Millisecond)
			}
		}
		// A busy machine can push the writes past the second's first
		// tenth (a cron tick of the server's); then the next second.
		if late = time.Since(second); late < 100*time.Millisecond {
			return nil
		}
	}
	return fmt.Errorf("could not line the run up with a wall second in %d tries: the fsync phase writes took up to %v", tries, late)
}
