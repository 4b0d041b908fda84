package zookeeper

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

// Where Debian's zookeeper package puts ZooKeeper, and what runs it.
const (
	Package = "zookeeper" // the Debian package of the server's jars
	Version = "3.8.0"     // the release bookworm packages, which the tests and the docs were run with
	// Jar is the server's jar; its manifest's Class-Path names every jar
	// it needs, all in /usr/share/java.
	Jar = "/usr/share/java/zookeeper.jar"
	// logJar, when present (libslf4j-java, which zookeeper depends on),
	// gives the server's log a binding, so that a server that fails to
	// start says why on its stderr; without it slf4j logs nothing.
	logJar      = "/usr/share/java/slf4j-simple.jar"
	Java        = "java"
	JavaPackage = "default-jre" // what the zookeeper package depends on for java
	mainClass   = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
)

// Find returns the java binary and the server's jar, or a
// *proc.MissingError naming the Debian package that provides the one
// missing.
func Find() (java, jar string, err error) {
	if _, err := os.Stat(Jar); err != nil {
		return "", "", &proc.MissingError{Binary: Jar, Package: Package}
	}
	java, err = proc.LookPath(Java, JavaPackage)
	return java, Jar, err
}

// Config configures an ensemble. The zero value is 3 servers with
// ZooKeeper's default tickTime of 2 s.
type Config struct {
	Servers int           // 0 means 3; an odd number, so that a majority is clear
	Tick    time.Duration // tickTime: whole milliseconds; 0 means 2 s
	// Ready bounds the whole start, every server serving and one write
	// committed; 0 means 60 s (a JVM starts in seconds on a busy machine).
	Ready time.Duration
}

func (c Config) withDefaults() Config {
	if c.Servers == 0 {
		c.Servers = 3
	}
	if c.Tick == 0 {
		c.Tick = 2 * time.Second
	}
	if c.Ready == 0 {
		c.Ready = 60 * time.Second
	}
	return c
}

// Validate reports the first thing wrong with c, or nil.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Servers < 1 || c.Servers%2 == 0:
		return fmt.Errorf("zookeeper ensemble of %d servers; want an odd number >= 1", c.Servers)
	case c.Tick < time.Millisecond || c.Tick%time.Millisecond != 0:
		return fmt.Errorf("zookeeper tickTime %v; want whole milliseconds >= 1ms (zoo.cfg takes milliseconds)", c.Tick)
	case c.Ready < 0:
		return fmt.Errorf("zookeeper readiness deadline %v; want >= 0", c.Ready)
	}
	return nil
}

// SessionBounds are the session timeouts the servers grant: ZooKeeper
// negotiates a client's into [2, 20] ticks (minSessionTimeout and
// maxSessionTimeout, whose defaults the ensemble keeps).
func (c Config) SessionBounds() (lo, hi time.Duration) {
	c = c.withDefaults()
	return 2 * c.Tick, 20 * c.Tick
}

// ValidSessionTimeout reports why t is not a session timeout the ensemble
// grants as asked, or nil.
func (c Config) ValidSessionTimeout(t time.Duration) error {
	lo, hi := c.SessionBounds()
	if t%time.Millisecond != 0 || t < lo || t > hi {
		return fmt.Errorf("session timeout %v is not whole milliseconds in [%v, %v], 2 to 20 ticks of %v (minSessionTimeout and maxSessionTimeout, ZooKeeper Administrator's Guide): the servers would negotiate it into the bounds", t, lo, hi, c.withDefaults().Tick)
	}
	return nil
}

// Server is one ZooKeeper process.
type Server struct {
	*proc.Server     // Dir holds zoo.cfg and myid
	ID           int // its myid
	quorumPort   int
	electPort    int
}

// Ensemble is a running ZooKeeper ensemble.
type Ensemble struct {
	Servers []*Server
	procs   proc.Servers // the servers as processes: started, waited for, signalled
	cfg     Config
}

// Start starts an ensemble of cfg.Servers servers in g and waits until it
// is ready. On failure, the servers it started stay in g, whose Close
// ends them. A missing java or jar is a *proc.MissingError naming its
// package.
func Start(ctx context.Context, g *proc.Group, cfg Config) (*Ensemble, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	java, jar, err := Find()
	if err != nil {
		return nil, err
	}
	classpath := jar
	if _, err := os.Stat(logJar); err == nil {
		classpath += ":" + logJar
	}
	e := &Ensemble{cfg: cfg, procs: proc.Servers{Program: "zookeeper", Store: "zookeeper ensemble"}}
	for i := range cfg.Servers {
		ps, err := e.procs.Add(g, "z"+strconv.Itoa(i+1))
		if err != nil {
			return nil, err
		}
		s := &Server{Server: ps, ID: i + 1}
		if s.quorumPort, err = proc.FreePort(); err != nil {
			return nil, err
		}
		if s.electPort, err = proc.FreePort(); err != nil {
			return nil, err
		}
		e.Servers = append(e.Servers, s)
	}
	for _, s := range e.Servers {
		conf := filepath.Join(s.Dir, "zoo.cfg")
		if err := os.WriteFile(conf, []byte(e.zooCfg(s)), 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(s.Dir, "myid"), []byte(strconv.Itoa(s.ID)+"\n"), 0o644); err != nil {
			return nil, err
		}
		args := []string{
			// A small heap and the quick JIT: three JVMs share two cores
			// with the rest of the run.
			"-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
			"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
			"-Dzookeeper.admin.enableServer=false",
			"-cp", classpath, mainClass, conf,
		}
		if err := e.procs.Start(g, s.Server, proc.Spec{Path: java, Args: args, Dir: s.Dir}); err != nil {
			return nil, err
		}
	}
	if err := e.waitReady(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// zooCfg is server s's configuration: the ensemble's members, ZooKeeper's
// defaults for the session bounds, and limits in ticks long enough for
// JVMs that start and sync slowly on a busy machine.
func (e *Ensemble) zooCfg(s *Server) string {
	tick := e.cfg.Tick
	ticks := func(d time.Duration, least int64) int64 { return max(least, int64((d+tick-1)/tick)) }
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=%d\n", tick.Milliseconds())
	// initLimit and syncLimit: ZooKeeper's sample config has 10 and 5
	// ticks; with a scaled tick of a few hundred milliseconds that is too
	// short for a follower's first sync, so they are at least 20 s and
	// 5 s.
	fmt.Fprintf(&b, "initLimit=%d\n", ticks(20*time.Second, 10))
	fmt.Fprintf(&b, "syncLimit=%d\n", e.syncLimitTicks())
	fmt.Fprintf(&b, "dataDir=%s\n", s.Dir)
	fmt.Fprintf(&b, "clientPort=%s\n", strings.TrimPrefix(s.ClientAddr, "127.0.0.1:"))
	b.WriteString("clientPortAddress=127.0.0.1\n")
	b.WriteString("admin.enableServer=false\n")
	b.WriteString("4lw.commands.whitelist=srvr\n")
	b.WriteString("autopurge.purgeInterval=0\n")
	for _, m := range e.Servers {
		fmt.Fprintf(&b, "server.%d=127.0.0.1:%d:%d\n", m.ID, m.quorumPort, m.electPort)
	}
	return b.String()
}

// syncLimitTicks is the ensemble's syncLimit: how many ticks a follower
// waits for its leader (and the leader for a quorum of followers) before
// giving it up. 5 s at the least (see zooCfg).
func (e *Ensemble) syncLimitTicks() int64 {
	return max(5, int64((5*time.Second+e.cfg.Tick-1)/e.cfg.Tick))
}

// waitReady waits for every server's client port and its word that it
// leads or follows, then for one committed write, all within cfg.Ready.
func (e *Ensemble) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Ready)
	defer cancel()
	if err := e.procs.WaitListening(ctx); err != nil {
		return err
	}
	err := e.procs.WaitEach(ctx, "leading or following", func(i int) error {
		mode, err := e.Mode(e.Servers[i])
		if err != nil {
			return err
		}
		if mode != "leader" && mode != "follower" && mode != "standalone" {
			return fmt.Errorf("mode %q", mode)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return e.procs.WaitWrite(ctx, e.probe)
}

// probe writes one node through a fresh session and closes it.
func (e *Ensemble) probe() error {
	conn, err := connect(e.Endpoints(), 4*e.cfg.Tick, nil)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := waitSession(conn, 2*time.Second); err != nil {
		return err
	}
	_, err = conn.Create("/redlocksim-ready", []byte("1"), 0, zk.WorldACL(zk.PermAll))
	if errors.Is(err, zk.ErrNodeExists) {
		err = nil
	}
	return err
}

// Mode asks server s with the srvr four-letter word what it is: leader,
// follower, standalone, or an error while it has no quorum.
func (e *Ensemble) Mode(s *Server) (string, error) {
	conn, err := net.DialTimeout("tcp", s.ClientAddr, time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte("srvr")); err != nil {
		return "", err
	}
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		if mode, ok := strings.CutPrefix(sc.Text(), "Mode: "); ok {
			return mode, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", errors.New("no mode in its srvr answer (not serving yet)")
}

// Endpoints are the servers' client addresses (host:port), in server
// order: what a client dials, directly or through its proxies.
func (e *Ensemble) Endpoints() []string { return e.procs.Endpoints() }

// Config is the configuration the ensemble runs with, defaults filled in.
func (e *Ensemble) Config() Config { return e.cfg }

// Signal sends sig to every server, in server order: SIGSTOP and SIGCONT
// pause and resume the whole store.
func (e *Ensemble) Signal(sig syscall.Signal) error { return e.procs.Signal(sig) }
