package resource

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/redlocksim/redlocksim/model/proto"
)

// oracle is the version tree kept whole, as the resource kept it before it
// kept a window: every version's parent and element, every set rebuilt
// from its path to the root.
type oracle struct {
	parent []uint32
	elem   []uint64
}

func (o *oracle) set(v uint32) []uint64 {
	var out []uint64
	for ; v != 0; v = o.parent[v] {
		out = append(out, o.elem[v])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (o *oracle) depth(v uint32) int {
	d := 0
	for ; v != 0; v = o.parent[v] {
		d++
	}
	return d
}

// judgeable reports whether a resource keeping the last window of issued
// versions can rebuild v's set against cur's: every node on either path
// below their lowest common ancestor is in the window.
func (o *oracle) judgeable(v, cur, window uint32) bool {
	issued := uint32(len(o.parent))
	in := func(x uint32) bool { return uint64(x)+uint64(window) >= uint64(issued) }
	if !in(v) {
		return false
	}
	a, b := cur, v
	da, db := o.depth(a), o.depth(b)
	for a != b {
		if da >= db {
			if !in(a) {
				return false
			}
			a, da = o.parent[a], da-1
		} else {
			if !in(b) {
				return false
			}
			b, db = o.parent[b], db-1
		}
	}
	return true
}

// minus is a \ b for sorted sets, nil when empty.
func minus(a, b []uint64) []uint64 {
	var out []uint64
	for _, e := range a {
		if _, ok := slices.BinarySearch(b, e); !ok {
			out = append(out, e)
		}
	}
	return out
}

// windowPanic runs f and returns the *WindowError it panics with, or nil
// if it returns.
func windowPanic(t require.TestingT, f func()) (we *WindowError) {
	defer func() {
		if v := recover(); v != nil {
			var ok bool
			we, ok = v.(*WindowError)
			require.True(t, ok, "panicked with %v, not a *WindowError", v)
		}
	}()
	f()
	return nil
}

// Random reads and writes, based on the current version, on one a little
// or a lot behind, or anywhere, against the oracle: sets, the final set,
// its size and membership, each write's Dropped and Restored and the
// trace's drops are the whole tree's, for every base the window can judge;
// every other write stops with a *WindowError, changing nothing.
func TestWindowMatchesTheWholeTree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		window := uint32(1) << rapid.IntRange(0, 4).Draw(t, "log-window")
		mode := rapid.SampledFrom([]Mode{Unprotected, Fencing}).Draw(t, "mode")
		res := newWindowed(Config{Mode: mode}, window)
		env := &bareEnv{tracing: rapid.Bool().Draw(t, "tracing")}
		o := &oracle{parent: []uint32{0}, elem: []uint64{0}}
		cur := uint32(0)
		highest := uint64(0) // Fencing: what it has seen
		// Elements from a few values, so that duplicates are common, or
		// clients' serials.
		elem := rapid.OneOf(
			rapid.Uint64Range(1, 12),
			rapid.Custom(func(t *rapid.T) uint64 {
				return rapid.Uint64Range(1, 3).Draw(t, "client")<<40 | rapid.Uint64Range(1, 5000).Draw(t, "serial")
			}),
		)
		steps := rapid.IntRange(1, 120).Draw(t, "steps")
		for step := range steps {
			issued := uint32(len(o.parent))
			if rapid.IntRange(0, 9).Draw(t, "read?") == 0 {
				res.Handle(env, 1, proto.Msg{Kind: proto.ResourceRead, Req: uint64(step), Token: 5})
				highest = max(highest, 5)
				require.Equal(t, int64(cur), env.sent.Int)
				continue
			}
			var base uint32
			switch rapid.IntRange(0, 3).Draw(t, "base-kind") {
			case 0, 1:
				base = cur
			case 2:
				base = cur - min(cur, rapid.Uint32Range(1, window+2).Draw(t, "behind"))
			case 3:
				base = rapid.Uint32Range(0, issued-1).Draw(t, "anywhere")
			}
			e := elem.Draw(t, "elem")
			token := uint64(rapid.IntRange(4, 6).Draw(t, "token"))
			m := proto.Msg{Kind: proto.ResourceWrite, Req: uint64(step), Int: int64(base), Value: e, Token: token}
			before := res.Final()
			accepted := mode == Unprotected || token >= highest
			if accepted && !o.judgeable(base, cur, window) {
				we := windowPanic(t, func() { res.Handle(env, 1, m) })
				require.NotNil(t, we, "base %d, current %d, window %d", base, cur, window)
				require.Equal(t, o.inWindow(base, window), we.Diverged)
				require.Equal(t, before, res.Final(), "a write it cannot judge changes nothing")
				require.Equal(t, int(issued), res.Versions())
				continue
			}
			res.Handle(env, 1, m)
			obs := env.seen
			require.Equal(t, accepted, obs.OK)
			if !obs.OK {
				require.Equal(t, proto.StaleToken, obs.Err)
				require.Nil(t, obs.Dropped)
				require.Nil(t, obs.Restored)
				require.Equal(t, before, res.Final())
				continue
			}
			if mode == Fencing {
				highest = max(highest, token)
			}
			o.parent = append(o.parent, base)
			o.elem = append(o.elem, e)
			next := uint32(len(o.parent) - 1)
			curSet, baseSet, nextSet := o.set(cur), o.set(base), o.set(next)
			require.Equal(t, minus(curSet, nextSet), obs.Dropped, "dropped: base %d, current %d", base, cur)
			require.Equal(t, minus(baseSet, curSet), obs.Restored, "restored: base %d, current %d", base, cur)
			if base == cur {
				require.Nil(t, obs.Dropped)
				require.Nil(t, obs.Restored)
			}
			if env.tracing {
				want := ""
				if len(obs.Dropped) > 0 {
					want = fmt.Sprint(obs.Dropped)
				}
				require.Equal(t, want, env.field("drops"))
			}
			cur = next
			require.Equal(t, int64(cur), env.sent.Int)
			require.Equal(t, int64(cur), res.Version())
			require.Equal(t, len(o.parent), res.Versions())

			final := res.Final()
			require.Equal(t, nextSet, nilIfEmpty(final))
			require.Equal(t, len(nextSet), res.FinalLen())
			for range 3 {
				x := elem.Draw(t, "probe")
				_, in := slices.BinarySearch(nextSet, x)
				require.Equal(t, in, res.InFinal(x), "InFinal(%d)", x)
			}
			for _, x := range nextSet {
				require.True(t, res.InFinal(x))
			}
			v := rapid.Uint32Range(0, cur).Draw(t, "set-of")
			if o.judgeable(v, cur, window) {
				require.Equal(t, o.set(v), nilIfEmpty(res.Set(int64(v))), "Set(%d)", v)
			} else {
				we := windowPanic(t, func() { res.Set(int64(v)) })
				require.NotNil(t, we)
				require.True(t, errors.Is(we, we))
			}
			require.LessOrEqual(t, len(res.nodes), int(window))
		}
	})
}

func (o *oracle) inWindow(v, window uint32) bool {
	return uint64(v)+uint64(window) >= uint64(len(o.parent))
}

func nilIfEmpty(s []uint64) []uint64 {
	if len(s) == 0 {
		return nil
	}
	return s
}
