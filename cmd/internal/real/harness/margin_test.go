package harness

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/scenarios"
)

// redlock-py-drift-sign's holders write with 10 s + 102 ms of believed
// validity after a 10.05 s critical section: 52 ms, less the simulated
// latency of the five SETs sent one by one and the read (6 round trips of
// 2 × 1 ms), is a 40 ms margin. Six requests at RequestSlack each must fit
// in it at the default scale, so the scale is 40 ms / 12 ms, not the 6.43
// that the run's length alone would give.
func TestDefaultScaleKeepsTheRecheckMargin(t *testing.T) {
	cfg := load(t, "redlock-py-drift-sign").Config
	ms := margins(&cfg)
	require.Len(t, ms, 1)
	assert.Equal(t, 40*time.Millisecond, ms[0].d)
	assert.Equal(t, 6, ms[0].requests)
	f := DefaultScale(&cfg)
	assert.InDelta(t, 40.0/12, f, 1e-9)
	assert.Less(t, f, float64(cfg.Duration)/float64(TargetWall), "the margin, not the run's length, sets the scale")
	left := time.Duration(float64(ms[0].d)/f) - time.Duration(ms[0].requests)*RequestSlack
	assert.GreaterOrEqual(t, left, -time.Microsecond, "at the default scale the margin pays for its requests")
	require.NoError(t, CheckScale(&cfg, f))
}

func TestMarginRule(t *testing.T) {
	base := load(t, "redlock-py-drift-sign").Config
	plain := float64(base.Duration) / float64(TargetWall)
	cases := []struct {
		name   string
		change func(l *client.LockConfig, w *client.WorkConfig)
		want   float64 // the default scale; 0: the run's length alone sets it
	}{
		// With redlock-py's correct sign the validity (9.898 s) is shorter
		// than the critical section: the holders are meant to abandon
		// their writes, and a real round only makes them abandon sooner.
		{"correct sign", func(l *client.LockConfig, _ *client.WorkConfig) { l.DriftAdded = false }, 0},
		{"no recheck", func(_ *client.LockConfig, w *client.WorkConfig) { w.RecheckBeforeWrite = false }, 0},
		// In parallel the acquisition is one round: 2 requests, 4 ms of
		// simulated round trips, a 48 ms margin for 4 ms of slack: 12,
		// above the run's own 6.43.
		{"nodes in parallel", func(l *client.LockConfig, _ *client.WorkConfig) { l.Sequential = false }, 0},
		// A recheck margin of 20 ms leaves 20 ms for the six requests.
		{"recheck margin", func(_ *client.LockConfig, w *client.WorkConfig) { w.RecheckMargin = 20 * time.Millisecond }, 20.0 / 12},
		// A fencing token is one request more: 52 - 14 = 38 ms for 14 ms.
		{"incr token", func(_ *client.LockConfig, w *client.WorkConfig) {
			w.Tokens, w.FenceNode, w.FenceKey = client.IncrToken, "n1", "fence"
		}, 38.0 / 14},
		// Without the validity check the deadline counts from the replies:
		// only the read eats the margin (50 ms for 2 ms).
		{"no validity check", func(l *client.LockConfig, _ *client.WorkConfig) { l.ValidityCheck = false }, 0},
		// Renewal moves the validity: no fixed margin.
		{"auto-extend", func(l *client.LockConfig, _ *client.WorkConfig) {
			l.Renewal, l.ExtendThreshold = client.AutoExtend, 500*time.Millisecond
		}, 0},
		// A margin too thin to keep at any scale runs unscaled, never
		// stretched.
		{"thin", func(_ *client.LockConfig, w *client.WorkConfig) {
			w.CriticalSection = 10*time.Second + 85*time.Millisecond
		}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.change(&cfg.Lock, &cfg.Work)
			want := tc.want
			if want == 0 {
				want = plain
				assert.GreaterOrEqual(t, MarginScale(&cfg), plain)
			}
			assert.InDelta(t, want, DefaultScale(&cfg), 1e-9)
		})
	}
}

// A slower network leaves less of the margin: the slowest link's expected
// latency is taken for every request.
func TestMarginTakesTheSlowestLink(t *testing.T) {
	cfg := load(t, "redlock-py-drift-sign").Config
	before := MarginScale(&cfg)
	cfg.Network.Links = append(cfg.Network.Links, model.LinkConfig{From: "c1", To: "n3", Latency: network.Constant(3 * time.Millisecond)})
	// 52 ms - 6 × 2 × 3 ms = 16 ms for 12 ms of slack.
	assert.InDelta(t, 16.0/12, MarginScale(&cfg), 1e-9)
	assert.Less(t, MarginScale(&cfg), before)
}

// Only redlock-py-drift-sign among the library scenarios has a margin
// (the only one with recheck_before_write); every other default scale is
// the run's length's or its resolution's, as before the rule.
func TestOnlyDriftSignHasAMargin(t *testing.T) {
	for _, n := range scenarios.LibraryNames() {
		c := load(t, n).Config
		if n == "redlock-py-drift-sign" {
			assert.Less(t, MarginScale(&c), math.Inf(1), n)
			continue
		}
		assert.True(t, math.IsInf(MarginScale(&c), 1), n)
	}
}
