package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRealRefusesAClockFaultWithExit2(t *testing.T) {
	code, out, errOut := runCLI("real", "clock-jump")
	assert.Equal(t, exitBadInput, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "redlocksim real: clock-jump: cannot run for real: clock-step fault on n3")
}

func TestRealClientIsHidden(t *testing.T) {
	code, out, _ := runCLI("help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "real ")
	assert.NotContains(t, out, "real-client")
}

func TestCompareRefusesWhatCannotRunForReal(t *testing.T) {
	code, _, errOut := runCLI("compare", "aof-everysec-power-loss")
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errOut, "appendfsync everysec")
}

func TestCompareVerdicts(t *testing.T) {
	five := newRate(5, 5)
	none := newRate(0, 5)
	assert.Equal(t, "violation", five.verdict())
	assert.Equal(t, "safe", none.verdict())
	assert.False(t, five.overlaps(none), "5/5 [%.2f,%.2f] and 0/5 [%.2f,%.2f]", five.Lo, five.Hi, none.Lo, none.Hi)
	four := newRate(4, 5)
	assert.True(t, five.overlaps(four))
	assert.Equal(t, "4/5 [0.38,0.96]", four.String())
}
