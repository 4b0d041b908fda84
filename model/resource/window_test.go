package resource

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model/proto"
)

// The tree keeps at most Window nodes however many writes come, stale ones
// among them, and the current set stays whole and exact: three clients'
// interleaved serials, every tenth write based on the version three back
// (dropping three elements, out of the set from then on).
func TestTheTreeStaysWithinTheWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1.5 million elements")
	}
	res := New(Config{Mode: Unprotected})
	env := &bareEnv{}
	const writes = Window + Window/2
	dropped := 0
	for i := range uint64(writes) {
		base := res.Version()
		if i%10 == 9 {
			base -= 3
		}
		e := (i%3+1)<<40 | (2*(i/3) + 2)
		res.Handle(env, 1, proto.Msg{Kind: proto.ResourceWrite, Req: i, Int: base, Value: e})
		require.True(t, env.seen.OK)
		dropped += len(env.seen.Dropped)
		require.Empty(t, env.seen.Restored)
	}
	assert.Equal(t, Window, len(res.nodes), "the nodes kept")
	assert.Equal(t, Window, cap(res.nodes), "the nodes allocated")
	assert.Equal(t, writes+1, res.Versions())
	assert.Equal(t, 3*(writes/10), dropped)
	assert.Equal(t, writes-dropped, res.FinalLen())
	assert.Len(t, res.Final(), res.FinalLen())
	// The three writes before a stale write are gone, the rest kept.
	assert.True(t, res.InFinal(3<<40|4), "write 5")
	assert.False(t, res.InFinal(1<<40|6), "write 6, dropped by write 9")
	assert.False(t, res.InFinal(2<<40|6), "write 7, dropped by write 9")
	assert.False(t, res.InFinal(3<<40|6), "write 8, dropped by write 9")
	assert.True(t, res.InFinal(1<<40|8), "write 9 itself")
	// A block of 4096 serials holds about 2048 elements here: well under
	// a bit a serial.
	assert.Less(t, len(res.final.blocks)*len(block{})*8, writes, "bytes of the final set")
}

// A write based on a version the window no longer holds stops with a
// *WindowError that names the write, the versions and the limit, and
// changes nothing; so does one whose base is held but whose branch left the
// current version's before the window.
func TestAWriteBeyondTheWindowStopsClearly(t *testing.T) {
	res := newWindowed(Config{Mode: Unprotected}, 8)
	env := &bareEnv{}
	write := func(base int64, e uint64) {
		res.Handle(env, 3, proto.Msg{Kind: proto.ResourceWrite, Int: base, Value: e})
	}
	for i := range uint64(10) {
		write(res.Version(), i+1)
	}
	require.Equal(t, int64(10), res.Version())
	we := windowPanic(t, func() { write(1, 99) })
	require.NotNil(t, we)
	assert.Equal(t, WindowError{Writer: "c3", Element: 99, Base: 1, Current: 10, Window: 8}, *we)
	assert.Equal(t, "resource: c3 writes element 0x63 based on version 1, 9 versions behind the current version 10, "+
		"but the resource keeps only the last 8 versions (resource.Window), so that its memory does not grow with the run: "+
		"it cannot tell which elements that version holds. A read-modify-write this stale is beyond what the simulator models; "+
		"shorten the run or the pause that makes it", we.Error())
	assert.Equal(t, 11, res.Versions(), "nothing changed")
	assert.Equal(t, 10, res.FinalLen())
	write(3, 100) // the oldest version held is judged exactly
	assert.Equal(t, []uint64{4, 5, 6, 7, 8, 9, 10}, env.seen.Dropped)
	assert.Equal(t, []uint64{1, 2, 3, 100}, res.Final())

	// Two branches taking turns: each write is based on the version two
	// back, so the branches part at the root, soon forgotten.
	res = newWindowed(Config{Mode: Unprotected}, 8)
	write(0, 1)
	for i := range uint64(8) {
		write(res.Version()-1, i+2)
	}
	require.Equal(t, int64(9), res.Version())
	we = windowPanic(t, func() { write(8, 50) })
	require.NotNil(t, we)
	assert.True(t, we.Diverged)
	assert.Contains(t, we.Error(), "based on version 8, on a branch that parted from the current version 9's more than 8 versions back")
	assert.Equal(t, []uint64{1, 3, 5, 7, 9}, res.Final(), "nothing changed")
	assert.NotNil(t, windowPanic(t, func() { res.Set(8) }))
	assert.Equal(t, []uint64{1, 3, 5, 7}, res.Set(7), "the current branch is judged")
}
