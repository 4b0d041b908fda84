package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/model/resource"
)

// A budgeted run ends with the resource's *resource.WindowError as its
// error, and no result; any other panic goes on.
func TestStopAtWindow(t *testing.T) {
	we := &resource.WindowError{Writer: "c1", Base: 1, Current: 9, Window: 8}
	run := func(v any) (r Result, err error) {
		defer stopAtWindow(&r, &err)
		r.Seed = 7
		if v != nil {
			panic(v)
		}
		return r, nil
	}
	r, err := run(we)
	require.Same(t, we, err)
	assert.Equal(t, Result{}, r)
	r, err = run(nil)
	require.NoError(t, err)
	assert.Equal(t, uint64(7), r.Seed)
	assert.PanicsWithValue(t, "a bug", func() { _, _ = run("a bug") })
}
