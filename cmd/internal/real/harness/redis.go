package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/model"
	modelredis "github.com/redlocksim/redlocksim/model/redis"
)

// redisNode is one scenario node: a redis-server process on loopback in a
// directory of its own, which a restart reuses so that the AOF reloads.
type redisNode struct {
	name string
	path string // the redis-server binary
	// dir is the node's data directory (its AOF and its log): a plain
	// directory of the run's (run.dir) unless a nodeSetup gave it another,
	// such as a mount point of a filesystem that can lose what was not
	// fsynced. Every start of the node, a restart too, uses it.
	dir string
	// workDir is the server's working directory when it starts ("": dir).
	// A setup that puts dir on a FUSE mount this process serves sets it
	// elsewhere: Go starts a child with CLONE_VFORK, so the forked child
	// holds a P of this process until it execs, and a chdir into the mount
	// before the exec can wait on the filesystem forever while a garbage
	// collection waits on that P. (redis-server moves to --dir itself.)
	workDir string
	// env are entries added to the server's environment, on every start
	// (nil: the harness's own environment, unchanged), such as
	// "LD_PRELOAD=/path/libclockshim.so" and the variable naming the
	// node's clock file.
	env []string
	// powerLoss is what a power-loss fault does to the running server in
	// place of a crash's SIGKILL, which keeps the page cache: a
	// filesystem that holds unsynced writes drops them and kills the
	// server (n.crash), in the order it needs. nil: a power loss is a
	// crash. Either way the restart after the fault's For is a crash's.
	powerLoss func(n *redisNode) error
	port      int
	args      []string
	group     *proc.Group

	mu sync.Mutex
	p  *proc.Proc
}

// A nodeSetup prepares one node before its first start: it may set the
// node's dir, env and powerLoss (see redisNode), and add to r.atT0 what
// needs the run's start. cfg is the node's scaled configuration.
type nodeSetup func(r *run, cfg model.NodeConfig, n *redisNode) error

// nodeSetups run in order for every node of every system, before the
// node's first start. The clock library (cmd/internal/real/clockshim) and
// the filesystem that loses unsynced writes (cmd/internal/real/lazyfs)
// plug in here, each deciding from cfg and r.cfg whether the node needs it.
var nodeSetups = []nodeSetup{nodeClock}

// redisArgs translates a node's persistence into redis-server flags:
// none → no AOF and no RDB snapshots; everysec or always → AOF with that
// fsync policy.
func redisArgs(n model.NodeConfig, port int, dir string) []string {
	args := []string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--daemonize", "no", "--protected-mode", "no", "--save", "",
		"--logfile", filepath.Join(dir, "redis.log"),
		// A replica's first sync starts at once instead of after the
		// default 5 s wait for more replicas to share a diskless transfer.
		"--repl-diskless-sync-delay", "0",
	}
	switch n.Redis.Persistence {
	case modelredis.AOFAlways:
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	case modelredis.AOFEverySec:
		args = append(args, "--appendonly", "yes", "--appendfsync", "everysec")
	default:
		args = append(args, "--appendonly", "no")
	}
	return args
}

func (n *redisNode) addr() string { return "127.0.0.1:" + strconv.Itoa(n.port) }

// start starts the server and waits until it answers PING (after loading
// its AOF, if any).
func (n *redisNode) start(ctx context.Context) error {
	var env []string
	if len(n.env) > 0 {
		env = append(os.Environ(), n.env...)
	}
	wd := n.workDir
	if wd == "" {
		wd = n.dir
	}
	p, err := n.group.Start(proc.Spec{Name: n.name + " (redis-server)", Path: n.path, Args: n.args, Dir: wd, Env: env})
	if err != nil {
		return err
	}
	n.mu.Lock()
	n.p = p
	n.mu.Unlock()
	c := redis.NewClient(&redis.Options{Addr: n.addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1,
		DialTimeout: 200 * time.Millisecond, ReadTimeout: 200 * time.Millisecond})
	defer c.Close()
	err = proc.WaitFor(ctx, p, 10*time.Second, n.name+" answering PING on "+n.addr(), func() error {
		return c.Ping(ctx).Err()
	})
	if err != nil {
		// The run's directory, and the log with it, is removed when the
		// run ends: say the log's last lines now.
		return fmt.Errorf("%w; the last lines of its log, %s, which goes with the run's directory:\n%s", err, filepath.Join(n.dir, "redis.log"), logTail(filepath.Join(n.dir, "redis.log"), 5))
	}
	return nil
}

// signal sends sig to the running server.
func (n *redisNode) signal(sig syscall.Signal) error {
	n.mu.Lock()
	p := n.p
	n.mu.Unlock()
	if p == nil {
		return fmt.Errorf("%s is not running", n.name)
	}
	return p.Signal(sig)
}

// crash kills the server with SIGKILL: no shutdown, no final fsync; what
// it wrote to the OS (the AOF tail in the page cache) survives.
func (n *redisNode) crash() error {
	n.mu.Lock()
	p := n.p
	n.p = nil
	n.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Kill()
}

// losePower is a power-loss fault on the server: powerLoss if a setup
// gave one, else a crash.
func (n *redisNode) losePower() error {
	if n.powerLoss != nil {
		return n.powerLoss(n)
	}
	return n.crash()
}

// do runs one command on the node directly (not through a proxy): the
// harness's own setup, such as the fencing counter's start value.
func (n *redisNode) do(ctx context.Context, args ...any) error {
	c := redis.NewClient(&redis.Options{Addr: n.addr(), Protocol: 2, DisableIdentity: true, MaxRetries: -1})
	defer c.Close()
	return c.Do(ctx, args...).Err()
}

// logTail is the last n lines of the file at path, indented, or why
// there are none.
func logTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "    (" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	return "    " + strings.Join(lines, "\n    ")
}
