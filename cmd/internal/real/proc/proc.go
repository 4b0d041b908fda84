package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// MissingError says that a binary the run needs is not installed.
type MissingError struct {
	Binary  string // e.g. redis-server
	Package string // the Debian package that provides it
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s is not installed: install the Debian package %s (apt-get install -y %s)", e.Binary, e.Package, e.Package)
}

// LookPath finds binary on PATH, or returns a *MissingError naming pkg.
func LookPath(binary, pkg string) (string, error) {
	p, err := exec.LookPath(binary)
	if err != nil {
		return "", &MissingError{Binary: binary, Package: pkg}
	}
	return p, nil
}

// Spec describes one child.
type Spec struct {
	Name   string   // for messages: "n1", "c2"
	Path   string   // the binary
	Args   []string // without the program name
	Dir    string   // working directory ("" = the caller's)
	Env    []string // nil = the caller's environment
	Stdin  io.Reader
	Stdout io.Writer // nil: kept in the child's output tail
	Stderr io.Writer // nil: kept in the child's output tail
}

// Proc is a running (or exited) child.
type Proc struct {
	Name string
	cmd  *exec.Cmd
	tail *tailBuffer
	done chan struct{}
	err  error // exit status, valid once done is closed
}

// Pid is the child's process id, which is also its process group id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the child has exited and been reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited reports whether the child has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// ExitError describes how the child ended and what it printed last; it is
// meaningful only once Done is closed.
func (p *Proc) ExitError() error {
	status := "exited"
	if p.err != nil {
		status = p.err.Error()
	}
	out := strings.TrimSpace(p.tail.String())
	if out == "" {
		return fmt.Errorf("%s (pid %d) %s", p.Name, p.Pid(), status)
	}
	return fmt.Errorf("%s (pid %d) %s; its last output:\n%s", p.Name, p.Pid(), status, indent(out))
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

// Finished reports whether the child has exited, with status 0.
func (p *Proc) Finished() bool { return p.Exited() && p.err == nil }

// Signal sends sig to the child's whole process group.
func (p *Proc) Signal(sig syscall.Signal) error {
	if p.Exited() {
		return fmt.Errorf("%s: cannot send %v: %w", p.Name, sig, p.ExitError())
	}
	if err := syscall.Kill(-p.Pid(), sig); err != nil {
		return fmt.Errorf("%s: %v: %w", p.Name, sig, err)
	}
	return nil
}

// Kill kills the child's process group with SIGKILL and waits for the
// child to be reaped, at most five seconds (SIGKILL cannot be caught, so a
// longer wait means the kernel is stuck on the child's I/O).
func (p *Proc) Kill() error {
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	select {
	case <-p.done:
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("%s (pid %d) survived SIGKILL for 5s", p.Name, p.Pid())
	}
}

// Group owns children and temporary directories and ends them together.
type Group struct {
	mu      sync.Mutex
	procs   []*Proc
	dirs    []string
	closers []func() error
	closed  bool
}

// NewGroup returns an empty group.
func NewGroup() *Group { return &Group{} }

// ErrClosed is returned by Start and TempDir after Close.
var ErrClosed = errors.New("proc: group is closed")

// TempDir makes a temporary directory that Close removes. Beside it an
// owner file names this process, so that if the process is killed before
// Close, the next process's first TempDir removes it (RemoveStale).
func (g *Group) TempDir(pattern string) (string, error) {
	staleOnce.Do(func() { _, _ = RemoveStale() })
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return "", ErrClosed
	}
	d, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	if err := markOwner(d); err != nil {
		os.RemoveAll(d)
		return "", fmt.Errorf("mark the owner of %s: %w", d, err)
	}
	g.dirs = append(g.dirs, d)
	return d, nil
}

// Keep stops Close from removing dir (for --keep); the caller owns it now,
// and no later run removes it either.
func (g *Group) Keep(dir string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, d := range g.dirs {
		if d == dir {
			g.dirs = append(g.dirs[:i], g.dirs[i+1:]...)
			_ = os.Remove(d + ownerSuffix)
			return
		}
	}
}

// Defer has Close call f after the children are dead and before the
// temporary directories go: an unmount, for example. Deferred calls run
// last first. After Close, f runs at once.
func (g *Group) Defer(f func() error) error {
	g.mu.Lock()
	if !g.closed {
		g.closers = append(g.closers, f)
		g.mu.Unlock()
		return nil
	}
	g.mu.Unlock()
	return f()
}

// Start starts a child in its own process group.
func (g *Group) Start(s Spec) (*Proc, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, ErrClosed
	}
	cmd := exec.Command(s.Path, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	cmd.Stdin = s.Stdin
	p := &Proc{Name: s.Name, cmd: cmd, tail: &tailBuffer{max: 4096}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.tail, p.tail
	if s.Stdout != nil {
		cmd.Stdout = s.Stdout
	}
	if s.Stderr != nil {
		cmd.Stderr = io.MultiWriter(s.Stderr, p.tail)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := startOnLockedThread(cmd); err != nil {
		return nil, fmt.Errorf("start %s (%s): %w", s.Name, s.Path, err)
	}
	g.procs = append(g.procs, p)
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Close kills every child's process group, waits for each, and removes
// the temporary directories. It returns the first problem, after trying
// everything.
func (g *Group) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	procs, dirs, closers := g.procs, g.dirs, g.closers
	g.mu.Unlock()
	var errs []error
	for _, p := range procs {
		_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	}
	for _, p := range procs {
		if err := p.Kill(); err != nil {
			errs = append(errs, err)
		}
	}
	for i := len(closers) - 1; i >= 0; i-- {
		if err := closers[i](); err != nil {
			errs = append(errs, err)
		}
	}
	for _, d := range dirs {
		// A mount a deferred call did not end would make RemoveAll
		// delete through it, or fail on it.
		if err := removeDir(d); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(d + ownerSuffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// The starter goroutine: locked to its OS thread forever, so that every
// child's Pdeathsig refers to a thread that lives as long as the program.
var (
	starterOnce sync.Once
	starts      chan startReq
)

type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

func startOnLockedThread(cmd *exec.Cmd) error {
	starterOnce.Do(func() {
		starts = make(chan startReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives on
			for r := range starts {
				r.done <- r.cmd.Start()
			}
		}()
	})
	r := startReq{cmd: cmd, done: make(chan error, 1)}
	starts <- r
	return <-r.done
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(b)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

// usedPorts are the ports FreePort handed out in this process; nextPort is
// where its walk through the listening range goes on.
var (
	portMu    sync.Mutex
	usedPorts = map[int]bool{}
	nextPort  int
)

// FreePort returns a loopback TCP port that was free a moment ago and that
// FreePort has not returned before in this process.
//
// It takes the port from below the kernel's ephemeral range, not from
// Listen(":0"): the kernel hands the ephemeral ports to outgoing
// connections too, so on a busy machine a port found free there was taken
// by some client's connection before the server (a JVM that starts in
// seconds) could bind it ("Address already in use"). Below the range only
// listeners compete; the walk starts at a place drawn from the process's
// id so that test processes running side by side start far apart.
func FreePort() (int, error) {
	portMu.Lock()
	defer portMu.Unlock()
	lo, hi := listeningRange()
	if nextPort < lo || nextPort >= hi {
		nextPort = lo + (os.Getpid()*7919)%(hi-lo)
	}
	for range hi - lo {
		port := nextPort
		if nextPort++; nextPort == hi {
			nextPort = lo
		}
		if usedPorts[port] {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			continue // in use, or held by another process
		}
		l.Close()
		usedPorts[port] = true
		return port, nil
	}
	return 0, fmt.Errorf("find a free loopback port: none free in %d-%d, below the ephemeral range", lo, hi-1)
}

// listeningRange is the range FreePort walks: from 10000 up to the start of
// the kernel's ephemeral range (net.ipv4.ip_local_port_range), or 10000 to
// 32767 where that cannot be read or leaves too little room.
func listeningRange() (lo, hi int) {
	lo, hi = 10000, 32768
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	if f := strings.Fields(string(b)); len(f) == 2 {
		if start, err := strconv.Atoi(f[0]); err == nil && start-lo >= 1000 {
			hi = start
		}
	}
	return lo, hi
}

// WaitTCP waits until addr accepts a TCP connection. It fails when the
// deadline passes (naming what it waited for) or when p, if not nil, exits
// first (with p's exit and last output).
func WaitTCP(ctx context.Context, addr string, p *Proc, timeout time.Duration) error {
	return WaitFor(ctx, p, timeout, "a connection to "+addr, func() error {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			return err
		}
		return c.Close()
	})
}

// WaitFor calls ready every 10 ms until it returns nil, the timeout
// passes, ctx ends, or p (if not nil) exits.
func WaitFor(ctx context.Context, p *Proc, timeout time.Duration, what string, ready func() error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var done <-chan struct{}
	if p != nil {
		done = p.done
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		if last = ready(); last == nil {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("waiting for %s: %w", what, p.ExitError())
		case <-ctx.Done():
			name := ""
			if p != nil {
				name = p.Name + ": "
			}
			return fmt.Errorf("%sno %s within %v (last error: %v)", name, what, timeout, last)
		case <-tick.C:
		}
	}
}
