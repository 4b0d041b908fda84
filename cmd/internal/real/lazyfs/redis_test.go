package lazyfs

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
)

// redisOn runs redis-server with an AOF in dir, fsynced as fsync says
// (everysec, as the harness's nodes do, or always), and returns a client
// and the process.
func redisOn(t testing.TB, g *proc.Group, dir, fsync string) (*redis.Client, *proc.Proc) {
	t.Helper()
	path := proctest.Need(t, "redis-server", "redis-server")
	port, err := proc.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.Start(proc.Spec{Name: "redis-server", Path: path, Args: []string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--daemonize", "no", "--save", "", "--appendonly", "yes", "--appendfsync", fsync,
	}})
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	if err := proc.WaitFor(ctx, p, 10*time.Second, "redis-server answering PING", func() error { return c.Ping(ctx).Err() }); err != nil {
		t.Fatal(err)
	}
	return c, p
}

func mustSet(t *testing.T, c *redis.Client, k string) {
	t.Helper()
	if err := c.Set(context.Background(), k, "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestRedisEverysecPowerLoss runs a real redis-server with
// appendfsync everysec on a lazyfs. A key the server has fsynced survives
// a power loss; a key written after the server's last fsync is lost; a
// process crash alone (SIGKILL, no power loss) loses neither.
//
// Redis 7.0's everysec fsyncs from flushAppendOnlyFile when
// server.unixtime > server.aof_last_fsync: the first write of a new wall
// second is fsynced at once (in the background thread), later writes of
// that second wait for the next second to begin. So "wait more than a
// second, SET" alone would be fsynced at once. The unsynced key must be
// the second write of a second whose first write (the trigger) was already
// fsynced; the test waits for that fsync (Syncs) before writing it.
func TestRedisEverysecPowerLoss(t *testing.T) {
	for _, powerLoss := range []bool{true, false} {
		name := "process-crash"
		if powerLoss {
			name = "power-loss"
		}
		t.Run(name, func(t *testing.T) {
			l := mounted(t)
			g := proc.NewGroup()
			t.Cleanup(func() { g.Close() })
			c, p := redisOn(t, g, l.Mountpoint, "everysec")
			mustSet(t, c, "first")
			time.Sleep(1200 * time.Millisecond) // the next second's cron fsyncs it

			// Start a fresh second, let its first write be fsynced, and
			// write the key within the same second.
			for {
				now := time.Now()
				next := now.Truncate(time.Second).Add(time.Second + 50*time.Millisecond)
				time.Sleep(time.Until(next))
				before := l.Syncs()
				mustSet(t, c, "trigger")
				deadline := time.Now().Add(500 * time.Millisecond)
				for l.Syncs() == before && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				if l.Syncs() == before {
					t.Fatal("redis-server did not fsync the first write of a new second within 500 ms")
				}
				mustSet(t, c, "second")
				if time.Now().Truncate(time.Second).Equal(next.Truncate(time.Second)) {
					break // still the trigger's second: "second" is unsynced
				}
			}
			if powerLoss {
				if _, err := l.DropUnsynced(); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.Kill(); err != nil {
				t.Fatal(err)
			}

			c2, _ := redisOn(t, g, l.Mountpoint, "everysec")
			ctx := context.Background()
			for _, k := range []string{"first", "trigger", "second"} {
				n, err := c2.Exists(ctx, k).Result()
				if err != nil {
					t.Fatal(err)
				}
				want := int64(1)
				if powerLoss && k == "second" {
					want = 0
				}
				if n != want {
					t.Errorf("after the restart EXISTS %s = %d, want %d", k, n, want)
				}
			}
			if err := g.Close(); err != nil {
				t.Error(err)
			}
		})
	}
}

// BenchmarkRedisSet measures what a lazyfs under redis-server's AOF costs
// a client: one SET's round trip with the data directory on a plain
// directory and on a lazyfs mount, under both fsync policies.
func BenchmarkRedisSet(b *testing.B) {
	if err := Available(); err != nil {
		b.Skip(err)
	}
	for _, fsync := range []string{"everysec", "always"} {
		for _, onLazyfs := range []bool{false, true} {
			name := fsync + "/plain"
			if onLazyfs {
				name = fsync + "/lazyfs"
			}
			b.Run(name, func(b *testing.B) {
				dir := b.TempDir()
				if onLazyfs {
					dir = mounted(b).Mountpoint
				}
				g := proc.NewGroup()
				defer g.Close()
				c, _ := redisOn(b, g, dir, fsync)
				ctx := context.Background()
				b.ResetTimer()
				for i := range b.N {
					if err := c.Set(ctx, "k"+strconv.Itoa(i%1000), "v", 0).Err(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
