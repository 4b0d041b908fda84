package lazyfs

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

// BenchmarkRedisSet measures what a lazyfs under redis-server's AOF costs
// a client: one SET's round trip with the data directory on a plain
// directory and on a lazyfs mount, under both fsync policies.
func BenchmarkRedisSet(b *testing.B) {
	if err := Available(); err != nil {
		b.Skip(err)
	}
	path, err := proc.LookPath("redis-server", "redis-server")
	if err != nil {
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
				port, err := proc.FreePort()
				if err != nil {
					b.Fatal(err)
				}
				p, err := g.Start(proc.Spec{Name: "redis-server", Path: path, Args: []string{
					"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir, "--daemonize", "no",
					"--save", "", "--appendonly", "yes", "--appendfsync", fsync}})
				if err != nil {
					b.Fatal(err)
				}
				c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), Protocol: 2, DisableIdentity: true})
				defer c.Close()
				ctx := context.Background()
				if err := proc.WaitFor(ctx, p, 10*time.Second, "PING", func() error { return c.Ping(ctx).Err() }); err != nil {
					b.Fatal(err)
				}
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
