package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExpectUnexpected(t *testing.T) {
	cases := []struct {
		expect          Expect
		mutex, resource bool // safe
		want            []string
	}{
		{Expect{}, false, false, nil},
		{Expect{Mutex: Violation, Resource: Violation}, false, false, nil},
		{Expect{Mutex: Safe, Resource: Safe}, true, true, nil},
		{Expect{Mutex: Violation, Resource: Violation}, true, false, []string{"mutual exclusion is safe, expected violation"}},
		{Expect{Mutex: Safe, Resource: Safe}, false, false, []string{"mutual exclusion is violation, expected safe", "the resource is violation, expected safe"}},
		{Expect{Resource: Safe}, false, false, []string{"the resource is violation, expected safe"}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.expect.Unexpected(c.mutex, c.resource), "%+v, mutex safe %v, resource safe %v", c.expect, c.mutex, c.resource)
	}
}

// TestJudgeLiveness: pauseBase with a 20 s TTL: c1 pauses from 1 s to
// 16 s holding the lock, c2 wants it from 11 s and gets it once c1 wakes
// and lets go, tens of milliseconds after the heal. Within three TTLs
// that is live; within 10 ms it is not; without property = "liveness"
// nothing is judged.
func TestJudgeLiveness(t *testing.T) {
	b, err := NewBase("pause.toml", []byte(pauseBase))
	require.NoError(t, err)
	judge := func(sets ...string) LivenessVerdict {
		t.Helper()
		o, err := ParseOverrides(append([]string{"lock.ttl=20s"}, sets...))
		require.NoError(t, err)
		s, err := b.Apply(o...)
		require.NoError(t, err)
		return s.JudgeLiveness(s.Plan.RunFast(s.Seed))
	}

	assert.Equal(t, LivenessVerdict{}, judge(), "property is not liveness")

	live := judge("property=liveness")
	require.True(t, live.Judged)
	assert.False(t, live.Starved, "%v", live.Starvation)
	assert.Equal(t, 60*time.Second, live.Limit, "the default limit is three TTLs")
	assert.Equal(t, DefaultLivenessLimit(20*time.Second), live.Limit)
	assert.Equal(t, 16*time.Second, live.Healed, "the pause heals at 16 s")
	assert.Equal(t, "c2", live.Client)
	assert.Positive(t, live.Wait)

	starved := judge("property=liveness", "liveness_limit=10ms")
	require.True(t, starved.Judged)
	assert.True(t, starved.Starved, "c2 waits %v after the heal, past 10ms", starved.Wait)
	assert.Equal(t, 10*time.Millisecond, starved.Limit)
	assert.Equal(t, live.Wait, starved.Wait, "the limit does not change the wait")
}
