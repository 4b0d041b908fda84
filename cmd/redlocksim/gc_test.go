package main

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestManyRunsGCTargetYieldsToGOGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)

	t.Setenv("GOGC", "100")
	tuneGCForManyRuns()
	assert.Equal(t, 100, debug.SetGCPercent(100), "GOGC set by the user must win")

	os.Unsetenv("GOGC") // t.Setenv restores it afterwards
	tuneGCForManyRuns()
	assert.Equal(t, manyRunsGCPercent, debug.SetGCPercent(100))
}
