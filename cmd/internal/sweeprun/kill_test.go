package sweeprun

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// killHelperEnv makes the test binary a sweep that stops itself after a few
// runs and waits to be killed (see TestKill9).
const killHelperEnv = "SWEEPRUN_KILL_HELPER_OUT"

func TestMain(m *testing.M) {
	if out := os.Getenv(killHelperEnv); out != "" {
		killHelper(out)
		return
	}
	os.Exit(m.Run())
}

func killHelper(out string) {
	spec := loadSpec(&testing.T{}, testSpec)
	opt := Options{Out: out, Workers: 2, SyncEvery: time.Hour}
	opt.Progress = func(done, todo int) {
		if done == 6 {
			os.Stdout.WriteString("ready\n")
			select {} // wait for SIGKILL, with runs finished and under way
		}
	}
	Run(context.Background(), spec, opt)
	os.Exit(3) // not reached
}

// TestKill9: a sweep killed with SIGKILL (no chance to clean up or fsync)
// loses no finished run, and --resume ends with the bytes of an
// uninterrupted sweep.
func TestKill9(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGKILL")
	}
	spec := loadSpec(t, testSpec)
	want, _ := sweepFiles(t, spec, t.TempDir(), Options{Workers: 2})

	dir := t.TempDir()
	out := filepath.Join(dir, "results.csv")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killHelperEnv+"="+out)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	require.NoError(t, cmd.Process.Kill())
	cmd.Wait()

	sum, err := Run(context.Background(), spec, Options{Out: out, Workers: 2, Resume: true})
	require.NoError(t, err)
	require.GreaterOrEqual(t, sum.Resumed, 6, "the runs the killed sweep finished are kept")
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}
