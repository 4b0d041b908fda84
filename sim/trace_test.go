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

func TestSpanRecorderRecordsOnlyInsideItsSpans(t *testing.T) {
	k := New(1)
	var got []time.Duration
	k.SetTrace(NewSpanRecorder([]Span{{2 * time.Second, 3 * time.Second}, {7 * time.Second, 7 * time.Second}},
		func(r Record) { got = append(got, r.At) }))
	var tracing []time.Duration
	for i := 1; i <= 10; i++ {
		k.Schedule(time.Duration(i)*time.Second, func(uint64) {
			if k.Tracing() {
				tracing = append(tracing, k.Now())
			}
			k.Record("c1", "tick") // unguarded: must be dropped outside the spans too
		}, 0)
	}
	k.Run()
	want := []time.Duration{2 * time.Second, 3 * time.Second, 7 * time.Second}
	assert.Equal(t, want, got, "records, both ends of a span included")
	assert.Equal(t, want, tracing, "Tracing is false outside the spans")
	assert.Empty(t, k.Trace().Records(), "a span recorder keeps nothing itself")
}

func TestSpanRecorderRefusesSpansOutOfOrder(t *testing.T) {
	sink := func(Record) {}
	assert.Panics(t, func() { NewSpanRecorder([]Span{{3, 4}, {4, 5}}, sink) }, "touching spans")
	assert.Panics(t, func() { NewSpanRecorder([]Span{{5, 4}}, sink) }, "an empty span")
	assert.Panics(t, func() { NewSpanRecorder(nil, nil) }, "no sink")
	assert.NotPanics(t, func() { NewSpanRecorder([]Span{{1, 1}, {2, 9}}, sink) })
}
