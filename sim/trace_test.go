package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestTraceTextForm(t *testing.T) {
	k := New(1)
	rec := NewRecorder()
	k.SetTrace(rec)
	k.Schedule(12*time.Second+250*time.Microsecond, func(uint64) {
		k.Record("c1", "acquire", F("key", "lock"), F("validity", 9890*time.Millisecond), F("nodes", "n3,n4 n5"))
	}, 0)
	k.Schedule(13*time.Second, func(uint64) { k.Record("n3", "expire") }, 0)
	k.Run()
	var b strings.Builder
	_, err := rec.WriteTo(&b)
	assert.NoError(t, err)
	assert.Equal(t, "12.000250000s c1 acquire key=lock validity=9.89s nodes=\"n3,n4 n5\"\n13.000000000s n3 expire\n", b.String())
	v, ok := rec.Records()[0].Get("validity")
	assert.True(t, ok)
	assert.Equal(t, "9.89s", v)
}

func TestDisabledTraceRecordsNothingAndDoesNotAllocate(t *testing.T) {
	k := New(1)
	assert.False(t, k.Tracing())
	assert.Nil(t, k.Trace().Records())
	allocs := testing.AllocsPerRun(100, func() { k.Record("c1", "noop") })
	assert.Zero(t, allocs)
}

func TestFormatTime(t *testing.T) {
	assert.Equal(t, "0.000000000s", FormatTime(0))
	assert.Equal(t, "1.500000001s", FormatTime(1500*time.Millisecond+1))
	assert.Equal(t, "-2.000000000s", FormatTime(-2*time.Second))
}
