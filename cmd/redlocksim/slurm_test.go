package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/cmd/internal/real/proc/proctest"
)

// slurmBinaries are what the one-node cluster needs, with their Debian
// packages.
var slurmBinaries = []struct{ binary, pkg string }{
	{"munged", "munge"},
	{"slurmctld", "slurm-wlm"},
	{"slurmd", "slurm-wlm"},
	{"sbatch", "slurm-wlm"},
	{"squeue", "slurm-wlm"},
	{"scontrol", "slurm-wlm"},
}

// slurmCluster is a one-node Slurm cluster of its own: munged, slurmctld
// and slurmd with every config, state, spool, pid, log and socket file in
// one directory, on ports of its own.
type slurmCluster struct {
	dir, conf string
	user      string   // SlurmUser and SlurmdUser
	env       []string // SLURM_CONF for the client commands
	group     *proc.Group
	ctld, d   *proc.Proc
}

// needSlurm skips the test when Slurm or munge is missing (naming the
// Debian packages), and fails it instead in CI.
func needSlurm(t *testing.T) {
	t.Helper()
	for _, b := range slurmBinaries {
		if _, err := proc.LookPath(b.binary, b.pkg); err != nil {
			proctest.Unavailable(t, fmt.Errorf("%w (the Slurm test needs the Debian packages slurm-wlm and munge)", err))
		}
	}
}

// startSlurm starts the cluster in dir and stops it when the test ends,
// however it ends: running jobs are cancelled, `scontrol shutdown` stops
// both Slurm daemons, munged is killed, and then no process of the
// cluster may be left (pgrep on the directory, which every daemon's
// command line names, and on slurmstepd).
func startSlurm(t *testing.T, dir string) *slurmCluster {
	t.Helper()
	host, err := os.Hostname()
	require.NoError(t, err)
	host, _, _ = strings.Cut(host, ".")
	ctldPort, err := proc.FreePort()
	require.NoError(t, err)
	dPort, err := proc.FreePort()
	require.NoError(t, err)
	for _, d := range []string{"state", "spool", "munge"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
	}
	// munged wants every directory above its socket searchable by all.
	for d := dir; d != "/"; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		require.NoError(t, err)
		if fi.Mode().Perm()&0o001 == 0 {
			require.NoError(t, os.Chmod(d, fi.Mode().Perm()|0o011))
		}
	}
	key := make([]byte, 1024)
	_, _ = rand.Read(key)
	keyFile := filepath.Join(dir, "munge", "munge.key")
	require.NoError(t, os.WriteFile(keyFile, key, 0o400))
	socket := filepath.Join(dir, "munge", "munge.socket")
	// The daemons run as whoever runs the test, and so do the jobs: a
	// slurmd that is not root can start jobs of its own user only.
	me, err := user.Current()
	require.NoError(t, err)
	c := &slurmCluster{dir: dir, conf: filepath.Join(dir, "slurm.conf"), user: me.Username, group: proc.NewGroup()}
	c.env = append(os.Environ(), "SLURM_CONF="+c.conf)
	conf := fmt.Sprintf(`ClusterName=redlocksim
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=%[7]s
SlurmdUser=%[7]s
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/slurmctld.log
SlurmdLogFile=%[5]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[6]d State=UNKNOWN
PartitionName=test Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, ctldPort, dPort, socket, dir, nproc(), c.user)
	require.NoError(t, os.WriteFile(c.conf, []byte(conf), 0o644))
	t.Cleanup(func() { c.stop(t) })

	munged, err := c.group.Start(proc.Spec{Name: "munged", Path: "munged", Args: []string{"-F",
		"--key-file=" + keyFile, "--socket=" + socket, "--pid-file=" + filepath.Join(dir, "munge", "munged.pid"),
		"--log-file=" + filepath.Join(dir, "munge", "munged.log"), "--seed-file=" + filepath.Join(dir, "munge", "munged.seed")}})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, proc.WaitFor(ctx, munged, 10*time.Second, "munged's socket", func() error {
		_, err := os.Stat(socket)
		return err
	}))
	c.ctld, err = c.group.Start(proc.Spec{Name: "slurmctld", Path: "slurmctld", Args: []string{"-D", "-f", c.conf}, Env: c.env})
	require.NoError(t, err)
	require.NoError(t, proc.WaitTCP(ctx, fmt.Sprintf("127.0.0.1:%d", ctldPort), c.ctld, 20*time.Second))
	c.d, err = c.group.Start(proc.Spec{Name: "slurmd", Path: "slurmd", Args: []string{"-D", "-f", c.conf}, Env: c.env})
	require.NoError(t, err)
	require.NoError(t, proc.WaitFor(ctx, c.d, 20*time.Second, "node "+host+" idle", func() error {
		out, err := c.run("scontrol", "show", "node", "-o", host)
		if err != nil {
			return err
		}
		if !strings.Contains(out, "State=IDLE") {
			return fmt.Errorf("not idle: %s", out)
		}
		return nil
	}))
	return c
}

// nproc is the machine's CPU count as Slurm counts it: slurmd refuses a
// node configured with more CPUs than it has.
func nproc() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return 1
	}
	var n int
	if _, err := fmt.Sscan(string(out), &n); err != nil || n < 1 {
		return 1
	}
	return n
}

// run runs a Slurm client command against the cluster.
func (c *slurmCluster) run(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = c.env
	cmd.Dir = c.dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// stop cancels every job, shuts the daemons down, kills munged and every
// child left, and fails the test if any process of the cluster survives.
func (c *slurmCluster) stop(t *testing.T) {
	if c.ctld != nil && !c.ctld.Exited() {
		c.run("scancel", "--full", "--user="+c.user) // no job of this cluster outlives it
		c.run("scontrol", "shutdown")
		for _, p := range []*proc.Proc{c.ctld, c.d} {
			if p == nil {
				continue
			}
			select {
			case <-p.Done():
			case <-time.After(10 * time.Second):
				// Slow, not leaked: on a loaded machine a daemon can take
				// this long to wind down. The group kills it below, and the
				// survivor check after that is what must hold.
				t.Logf("%s still runs 10 s after scontrol shutdown; killing it", p.Name)
			}
		}
	}
	if err := c.group.Close(); err != nil {
		t.Errorf("stop the cluster: %v", err)
	}
	// A job step's slurmstepd is reparented when it daemonizes, so it
	// may stay a zombie a moment after it exits, until its new parent
	// reaps it: that is not a survivor, a running one is.
	var left []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		left = left[:0]
		for _, pat := range [][]string{{"-f", c.dir}, {"-x", "slurmstepd"}} {
			out, _ := exec.Command("pgrep", append([]string{"-a"}, pat...)...).Output()
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				pid, _, _ := strings.Cut(line, " ")
				if line != "" && !zombie(pid) {
					left = append(left, line)
				}
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("processes of the Slurm cluster survive it:\n%s", strings.Join(left, "\n"))
	}
}

// zombie reports whether process pid has exited and waits to be reaped
// (or is gone).
func zombie(pid string) bool {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z'
}

// The cluster guide's Slurm array script, as `sweep --emit slurm` prints it,
// runs on a real one-node cluster as a 4-task array; merging its shards
// gives the very bytes of the one-machine sweep.
func TestSlurmArrayJobMatchesOneMachine(t *testing.T) {
	needSlurm(t)
	start := time.Now()
	dir := t.TempDir()
	spec := filepath.Join(dir, "small.toml")
	require.NoError(t, os.WriteFile(spec, []byte(smallSweep), 0o644))
	bin := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "redlocksim"), ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	built := time.Now()
	c := startSlurm(t, dir)
	up := time.Now()
	code, script, errOut := runCLI("sweep", spec, "--emit", "slurm", "--shards", "4", "--out", "results")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, script, "#SBATCH --array=0-3\n")
	job := filepath.Join(dir, "job.sh")
	require.NoError(t, os.WriteFile(job, []byte(script), 0o755))

	// The node has nproc CPUs; the script asks 4 per task, which a
	// cluster's nodes have: the command line overrides it here.
	c.env = append(c.env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	id, err := c.run("sbatch", "--parsable", "--cpus-per-task=1", "--chdir="+dir, "--output="+filepath.Join(dir, "slurm-%A_%a.out"), job)
	require.NoError(t, err)
	id = strings.TrimSpace(id)
	require.NoError(t, proc.WaitFor(context.Background(), c.ctld, 40*time.Second, "job "+id+" to finish", func() error {
		q, err := c.run("squeue", "-h", "-j", id)
		if err != nil {
			return err
		}
		if strings.TrimSpace(q) != "" {
			return fmt.Errorf("still queued or running:\n%s", q)
		}
		return nil
	}))
	ran := time.Now()
	show, err := c.run("scontrol", "show", "job", "-o", id)
	require.NoError(t, err)
	require.Equal(t, 4, strings.Count(show, "JobState=COMPLETED"), "every task completed:\n%s", show)
	require.Equal(t, 4, strings.Count(show, "ExitCode=0:0"), "every task exited 0:\n%s", show)

	shards, err := filepath.Glob(filepath.Join(dir, "results", "small.*.csv"))
	require.NoError(t, err)
	require.Len(t, shards, 4, "one shard per task")
	merged := filepath.Join(dir, "merged.csv")
	code, _, errOut = runCLI(append([]string{"merge", merged}, shards...)...)
	require.Equal(t, 0, code, errOut)
	one := filepath.Join(dir, "one.csv")
	code, _, errOut = runCLI("sweep", spec, "--out", one)
	require.Equal(t, 0, code, errOut)
	a, err := os.ReadFile(one)
	require.NoError(t, err)
	b, err := os.ReadFile(merged)
	require.NoError(t, err)
	require.Equal(t, string(a), string(b), "the merged shards differ from the one-machine sweep")
	ms := func(a, b time.Time) time.Duration { return b.Sub(a).Round(time.Millisecond) }
	t.Logf("build %v, cluster up %v, array job %v, merge and the one-machine sweep %v", ms(start, built), ms(built, up), ms(up, ran), ms(ran, time.Now()))
}
