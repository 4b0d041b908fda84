package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guideSlurmCommand prints the cluster guide's Slurm array script; the
// guide shows its output, and the Slurm test submits what the same flag
// prints.
var guideSlurmCommand = []string{"sweep", "ttl-vs-drift", "--emit", "slurm", "--shards", "16", "--out", "results"}

// The cluster guide's script is what sweep --emit slurm prints, so that
// the script the Slurm test runs is the one the guide shows.
func TestClusterGuideSlurmScriptIsEmitted(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "clusters.md"))
	require.NoError(t, err)
	code, script, errOut := runCLI(guideSlurmCommand...)
	require.Equal(t, 0, code, errOut)
	cmd := "redlocksim " + strings.Join(guideSlurmCommand, " ")
	assert.Contains(t, string(readme), "$ "+cmd+" > ttl-vs-drift.sbatch\n", "the cluster guide names the command that prints its script")
	assert.Contains(t, string(readme), "```sh\n"+script+"```\n", "the cluster guide's Slurm script is not what %s prints now:\n%s", cmd, script)
}

func TestEmitSlurm(t *testing.T) {
	code, script, errOut := runCLI("sweep", "fencing", "--emit", "slurm", "--shards", "2", "--out", "my results", "--seeds", "7")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(script, "#!/bin/bash\n#SBATCH --job-name=fencing\n#SBATCH --array=0-1\n"), script)
	assert.Contains(t, script, "mkdir -p 'my results'\n")
	assert.Contains(t, script, `redlocksim sweep fencing --seeds 7 --workers "${SLURM_CPUS_PER_TASK:-1}" --shard auto --resume`)
	assert.Contains(t, script, `--out 'my results/fencing'."$SLURM_ARRAY_TASK_ID".csv`)
	assert.Contains(t, script, "redlocksim merge fencing.csv 'my results/fencing'.*.csv")

	// An estimating sweep's tasks estimate, with the flags given.
	code, script, errOut = runCLI("sweep", "fencing", "--emit", "slurm", "--shards", "2", "--estimate", "--point-time", "40s", "--rel-error", "0.3")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, script, `redlocksim sweep fencing --estimate --point-time 40s --rel-error 0.3 --workers "${SLURM_CPUS_PER_TASK:-1}" --shard auto --resume`)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--emit", "pbs"}, `--emit "pbs": the one job script is slurm`},
		{[]string{"--emit", "slurm", "--shards", "0"}, "--shards must be between 1 and the sweep's"},
		{[]string{"--emit", "slurm", "--shards", "100000"}, "--shards must be between 1 and the sweep's"},
		{[]string{"--shards", "4", "--out", "x.csv"}, "--shards needs --emit slurm"},
	} {
		code, out, errOut := runCLI(append([]string{"sweep", "fencing"}, c.args...)...)
		assert.Equal(t, 2, code, c.args)
		assert.Empty(t, out, c.args)
		assert.Contains(t, errOut, c.want, c.args)
	}
}
