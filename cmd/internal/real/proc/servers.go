package proc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"syscall"
	"time"
)

// Server is one process of a store that runs as a group of servers: an
// etcd cluster's member, a ZooKeeper ensemble's server.
type Server struct {
	Name       string // n1, n2, ... or z1, z2, ...
	ClientAddr string // 127.0.0.1:port that its clients dial
	Dir        string // its data directory
	proc       *Proc
}

// Proc is the server's process, once Servers.Start has started it.
func (s *Server) Proc() *Proc { return s.proc }

// Servers is a store's group of servers, in order. The etcd cluster and
// the ZooKeeper ensemble differ in how they are configured and how a
// server says it serves; they start, wait and stop alike, here.
type Servers struct {
	Program string // names the processes and directories: "etcd" makes "etcd n1"
	Store   string // names the group in errors: "etcd cluster"
	List    []*Server
}

// Add makes the next server, named name, with a free client port and a
// data directory in g.
func (ss *Servers) Add(g *Group, name string) (*Server, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Name: name, ClientAddr: "127.0.0.1:" + strconv.Itoa(port)}
	if s.Dir, err = g.TempDir("redlocksim-" + ss.Program + "-" + name + "-*"); err != nil {
		return nil, err
	}
	ss.List = append(ss.List, s)
	return s, nil
}

// Start starts server s's process in g from spec, named after the
// program and the server ("etcd n1").
func (ss *Servers) Start(g *Group, s *Server, spec Spec) error {
	spec.Name = ss.Program + " " + s.Name
	var err error
	s.proc, err = g.Start(spec)
	return err
}

// The waits below share ctx's deadline, which the caller sets: the store's
// whole readiness has one bound.

// WaitListening waits until every server takes connections on its client
// address.
func (ss *Servers) WaitListening(ctx context.Context) error {
	deadline, _ := ctx.Deadline()
	for _, s := range ss.List {
		if err := WaitTCP(ctx, s.ClientAddr, s.proc, time.Until(deadline)); err != nil {
			return ss.notReady(err)
		}
	}
	return nil
}

// WaitEach waits, server by server, until serving(i) passes for server i;
// role says what that means ("reporting a leader").
func (ss *Servers) WaitEach(ctx context.Context, role string, serving func(i int) error) error {
	deadline, _ := ctx.Deadline()
	for i, s := range ss.List {
		err := WaitFor(ctx, s.proc, time.Until(deadline), ss.Program+" "+s.Name+" "+role, func() error { return serving(i) })
		if err != nil {
			return ss.notReady(err)
		}
	}
	return nil
}

// WaitWrite waits until write, a write through the store, succeeds while
// every server still runs.
func (ss *Servers) WaitWrite(ctx context.Context, write func() error) error {
	deadline, _ := ctx.Deadline()
	err := WaitFor(ctx, nil, time.Until(deadline), "a committed write to the "+ss.Store, func() error {
		for _, s := range ss.List {
			if s.proc.Exited() {
				return ss.notReady(s.proc.ExitError())
			}
		}
		return write()
	})
	if err != nil {
		return ss.notReady(err)
	}
	return nil
}

func (ss *Servers) notReady(err error) error {
	return fmt.Errorf("%s not ready: %w", ss.Store, err)
}

// Endpoints are the servers' client addresses (host:port), in order: what
// a client dials, directly or through its proxies.
func (ss *Servers) Endpoints() []string {
	out := make([]string, len(ss.List))
	for i, s := range ss.List {
		out[i] = s.ClientAddr
	}
	return out
}

// Signal sends sig to every server, in order: SIGSTOP and SIGCONT pause
// and resume the whole store. It tries every server and returns what went
// wrong.
func (ss *Servers) Signal(sig syscall.Signal) error {
	var errs []error
	for _, s := range ss.List {
		if err := s.proc.Signal(sig); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
