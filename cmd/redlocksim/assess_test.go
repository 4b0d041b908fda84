package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAssessBadInput: each bad flag is refused with exit 2 and a message
// that says what would be valid, before any run.
func TestAssessBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gc-pause", "--rate", "10"}, `"10" is not a lock rate: write acquisitions per unit of time, like 10/s, 600/min or 5/h`},
		{[]string{"gc-pause", "--rate", "-1/s"}, `"-1/s" is not a lock rate`},
		{[]string{"gc-pause", "--rate", "3/fortnight"}, "units s, min, h, d"},
		{[]string{"gc-pause", "--property", "liveness"}, `--property: unknown property "liveness"; want mutex or resource`},
		{[]string{"gc-pause", "--what-if", "prayer"}, `unknown remedy "prayer"`},
		{[]string{"gc-pause", "--max-time", "0s"}, "--max-time must be positive"},
		{[]string{"../internal/assess/testdata/pauses.toml", "--set", "clients.count=1", "--what-if", "none"}, "mutual exclusion needs two clients"},
	} {
		code, _, errOut := runCLI(append([]string{"assess"}, c.args...)...)
		assert.Equal(t, exitBadInput, code, "%v: %s", c.args, errOut)
		assert.Contains(t, errOut, c.want, "%v", c.args)
	}
}

func TestRateFlag(t *testing.T) {
	for in, want := range map[string]float64{"10/s": 10, "600/min": 10, "36/h": 0.01, "86400/d": 1, "2.5/s": 2.5} {
		var r rateFlag
		assert.NoError(t, r.Set(in), in)
		assert.InDelta(t, want, float64(r), 1e-12, in)
	}
}
