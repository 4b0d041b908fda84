package clockshim

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

// node is a redis-server reading its clock from a clock file.
type node struct {
	c    *redis.Client
	file string
}

// startNode starts redis-server under the library with spec's clock, not
// yet started; the server and its directory die with the test.
func startNode(t *testing.T, spec clocks.Spec) *node {
	t.Helper()
	redisPath, err := proc.LookPath("redis-server", "redis-server")
	need(t, err)
	lib, err := Library()
	need(t, err)
	dir := t.TempDir()
	_, path := writeClock(t, spec)
	g := proc.NewGroup()
	t.Cleanup(func() { g.Close() })
	port, err := proc.FreePort()
	require.NoError(t, err)
	p, err := g.Start(proc.Spec{
		Name: "redis-server", Path: redisPath, Dir: dir,
		Args: []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--daemonize", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log")},
		Env: append(os.Environ(), Env(lib, path)...),
	})
	require.NoError(t, err)
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), Protocol: 2, DisableIdentity: true})
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	require.NoError(t, proc.WaitFor(ctx, p, 10*time.Second, "PING", func() error { return c.Ping(ctx).Err() }))
	return &node{c: c, file: path}
}

// setAndWatch starts the node's clock now (T0), sets k with PX ttl at once
// and polls EXISTS every 2 ms until the key is gone. It returns the true
// times (since T0) at which the SET was sent and answered and at which
// the key was first seen gone.
func (n *node) setAndWatch(t *testing.T, ttl, limit time.Duration) (sent, answered, gone time.Duration) {
	t.Helper()
	ctx := context.Background()
	t0 := monoNow()
	require.NoError(t, Start(n.file, t0, time.Now()))
	since := func() time.Duration { return time.Duration(monoNow() - t0) }
	sent = since()
	require.NoError(t, n.c.Set(ctx, "k", "v", ttl).Err())
	answered = since()
	for since() < limit {
		e, err := n.c.Exists(ctx, "k").Result()
		require.NoError(t, err)
		if e == 0 {
			return sent, answered, since()
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("the key was still there at true time %v", since())
	return
}

// The test: SET k v PX 10000 at true time 0 and a +4 s step at
// true time 3 s. Redis expires keys by its wall clock, which reads 10 s
// at true time 6 s, so the key is gone between 6 s and 7 s, not at 10 s.
func TestRedisForwardStepExpiresEarly(t *testing.T) {
	t.Parallel()
	n := startNode(t, clocks.Spec{Steps: []clocks.Step{{At: 3 * time.Second, By: 4 * time.Second}}})
	_, _, gone := n.setAndWatch(t, 10*time.Second, 9*time.Second)
	assert.GreaterOrEqual(t, gone, 6*time.Second, "gone before the node's clock reached the expiry")
	assert.Less(t, gone, 7*time.Second, "the key should die as the stepped clock reaches 10 s, at true 6 s")
}

// At 5% fast (rate_ppm 50000) a 10 s key dies after 10/1.05 = 9.5238 s of
// true time. The window: no earlier than 9.5238 s after the SET was sent,
// less 1 ms (Redis stores expiry in whole ms, so it may round the expiry
// down by up to 1 ms of the node's clock); no later than 50 ms after the
// SET was answered plus 9.5238 s: the 2 ms poll, Redis's lazy expiry on
// the EXISTS itself, and a loaded two-core machine's scheduling delays.
// A 1% clock (9.90 s) or the machine's clock (10 s) would fall far outside.
func TestRedisFastClockShortensTheKey(t *testing.T) {
	t.Parallel()
	n := startNode(t, clocks.Spec{RatePPM: 50_000})
	sent, answered, gone := n.setAndWatch(t, 10*time.Second, 11*time.Second)
	life := 10 * time.Second * 100 / 105 // 9.5238 s
	assert.GreaterOrEqual(t, gone, sent+life-time.Millisecond)
	assert.LessOrEqual(t, gone, answered+life+50*time.Millisecond)
	t.Logf("SET sent at %v, answered at %v; gone at %v (expected %v after the SET)", sent, answered, gone, life)
}

// What Redis does with a wall clock that goes backwards: nothing special.
// A -2 s step at true 0.5 s makes PTTL jump up by 2 s and the key live
// 2 s longer, and the server keeps answering. So a backward step on a
// node runs for real, as the model has it.
func TestRedisBackwardStepLengthensTheKey(t *testing.T) {
	t.Parallel()
	n := startNode(t, clocks.Spec{Steps: []clocks.Step{{At: 500 * time.Millisecond, By: -2 * time.Second}}})
	ctx := context.Background()
	t0 := monoNow()
	require.NoError(t, Start(n.file, t0, time.Now()))
	since := func() time.Duration { return time.Duration(monoNow() - t0) }
	require.NoError(t, n.c.Set(ctx, "k", "v", 2*time.Second).Err())
	time.Sleep(400*time.Millisecond - since())
	before, err := n.c.PTTL(ctx, "k").Result()
	require.NoError(t, err)
	time.Sleep(600*time.Millisecond - since())
	after, err := n.c.PTTL(ctx, "k").Result()
	require.NoError(t, err)
	// Between 0.4 s and 0.6 s of true time the key aged 0.2 s and the
	// clock went back 2 s: PTTL grows by 1.8 s.
	assert.InDelta(t, 1800, (after - before).Milliseconds(), 60, "PTTL %v then %v", before, after)
	var gone time.Duration
	for since() < 6*time.Second {
		e, err := n.c.Exists(ctx, "k").Result()
		require.NoError(t, err)
		if e == 0 {
			gone = since()
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	assert.InDelta(t, 4.0, gone.Seconds(), 0.06, "the key dies 2 s late, at true 4 s")
}
