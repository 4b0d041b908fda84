package resource

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/proto"
	simres "github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/network"
)

// OpKind says whether an Op was a read or a write.
type OpKind uint8

const (
	Read  OpKind = 1 + iota // a read: the start of a read-modify-write
	Write                   // a write, accepted or rejected
)

// Op is one request the server served, in the order served.
type Op struct {
	Kind     OpKind
	Client   string
	Lock     uint64
	Token    uint64
	Element  uint64        // writes only
	Base     int64         // writes only: the version the write is based on
	Version  int64         // the current version after the request
	Accepted bool          // writes only
	Reason   string        // writes only, when rejected: "token 33 < 34"
	At       time.Duration // when it took effect, on the monotonic clock since the start instant
}

// maxLine bounds a request line; a longer one is malformed.
const maxLine = 512

// Server is the resource server. Create one with Listen and Close it.
type Server struct {
	ln      net.Listener
	start   time.Time
	service time.Duration
	reqs    chan *request
	done    chan struct{}
	served  chan struct{} // closed when the serving goroutine has ended

	mu    sync.Mutex
	res   *simres.Resource
	env   env
	ops   []Op
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
	// broken is the write the model resource could not judge (see
	// Err), after which the server serves nothing; broke is closed then.
	broken *simres.WindowError
	broke  chan struct{}
}

type request struct {
	op    Op
	reply chan string
}

// Listen starts a resource in cfg's mode on addr (use "127.0.0.1:0" for a
// free port). start is the instant operations are timed from; it must carry
// a monotonic reading (time.Now does).
func Listen(cfg simres.Config, addr string, start time.Time) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("resource: listen on %s: %w", addr, err)
	}
	service := cfg.ServiceTime
	cfg.ServiceTime = 0 // served here, in wall time
	s := &Server{
		ln:      ln,
		start:   start,
		service: service,
		reqs:    make(chan *request),
		done:    make(chan struct{}),
		served:  make(chan struct{}),
		broke:   make(chan struct{}),
		res:     simres.New(cfg),
		env:     env{ids: make(map[string]network.Endpoint)},
		conns:   make(map[net.Conn]struct{}),
	}
	go s.serve()
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// SetStart moves the instant operations are timed from, for a server that
// listens before the run's clock starts (so that its port is bound early
// and cannot be taken meanwhile). Operations already recorded keep their
// stamps.
func (s *Server) SetStart(start time.Time) {
	s.mu.Lock()
	s.start = start
	s.mu.Unlock()
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops accepting, closes every connection and waits for the
// server's goroutines. The record stays readable.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	select {
	case <-s.done:
		s.mu.Unlock()
		return nil
	default:
	}
	close(s.done)
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	<-s.served
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		select {
		case <-s.done:
			s.mu.Unlock()
			c.Close()
			return
		default:
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.handle(c)
	}
}

// handle reads requests from one connection and answers them in order.
func (s *Server) handle(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	r := bufio.NewReaderSize(c, maxLine)
	w := bufio.NewWriter(c)
	reply := make(chan string, 1)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			fmt.Fprintf(w, "ERR request longer than %d bytes\n", maxLine)
			w.Flush()
			return
		}
		if err != nil {
			return
		}
		op, perr := parse(strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r"))
		var out string
		if perr != nil {
			out = "ERR " + perr.Error()
		} else {
			select {
			case s.reqs <- &request{op: op, reply: reply}:
			case <-s.done:
				return
			}
			out = <-reply
		}
		if _, err := w.WriteString(out + "\n"); err != nil {
			return
		}
		if err := w.Flush(); err != nil {
			return
		}
	}
}

// parse reads one request line.
func parse(line string) (Op, error) {
	f := strings.Split(line, " ")
	var op Op
	var want int
	switch f[0] {
	case "READ":
		op.Kind, want = Read, 4
	case "WRITE":
		op.Kind, want = Write, 6
	default:
		return op, fmt.Errorf("unknown request %q; want READ or WRITE", f[0])
	}
	if len(f) != want {
		if op.Kind == Read {
			return op, fmt.Errorf("READ has %d fields; want READ <client> <lock> <token>", len(f))
		}
		return op, fmt.Errorf("WRITE has %d fields; want WRITE <client> <lock> <token> <element> <base>", len(f))
	}
	if f[1] == "" {
		return op, errors.New("empty client name")
	}
	op.Client = f[1]
	var err error
	if op.Lock, err = strconv.ParseUint(f[2], 10, 64); err != nil {
		return op, fmt.Errorf("lock %q is not a decimal uint64", f[2])
	}
	if op.Token, err = strconv.ParseUint(f[3], 10, 64); err != nil {
		return op, fmt.Errorf("token %q is not a decimal uint64", f[3])
	}
	if op.Kind == Write {
		if op.Element, err = strconv.ParseUint(f[4], 10, 64); err != nil {
			return op, fmt.Errorf("element %q is not a decimal uint64", f[4])
		}
		if op.Base, err = strconv.ParseInt(f[5], 10, 64); err != nil || op.Base < 0 {
			return op, fmt.Errorf("base version %q is not a decimal integer >= 0", f[5])
		}
	}
	return op, nil
}

// serve is the one goroutine that serves requests, in arrival order, each
// after the service time.
func (s *Server) serve() {
	defer close(s.served)
	for {
		select {
		case <-s.done:
			return
		case q := <-s.reqs:
			if s.service > 0 {
				t := time.NewTimer(s.service)
				select {
				case <-t.C:
				case <-s.done:
					t.Stop()
					return
				}
			}
			q.reply <- s.apply(q.op)
		}
	}
}

// Err is the write that broke the run, a *resource.WindowError from the
// model resource, or nil. A write based on a version older than the
// versions the model keeps (resource.Window) cannot be judged, so the
// server refuses it and every request after it with that error: the
// record would miss a write the client was told was refused for a reason
// of the server's own, and the run can no longer be judged. The harness
// fails the run with it.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken == nil {
		return nil // not a typed nil in an interface
	}
	return s.broken
}

// Broken is closed when the server stops serving with Err.
func (s *Server) Broken() <-chan struct{} { return s.broke }

// apply hands op to the model resource and records it.
func (s *Server) apply(op Op) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return "ERR " + s.broken.Error()
	}
	if op.Kind == Write && op.Base >= int64(s.res.Versions()) {
		return fmt.Sprintf("ERR base version %d was never issued (current %d)", op.Base, s.res.Version())
	}
	from := s.env.endpoint(op.Client)
	m := proto.Msg{Kind: proto.ResourceRead, Lock: op.Lock, Token: op.Token}
	if op.Kind == Write {
		m = proto.Msg{Kind: proto.ResourceWrite, Lock: op.Lock, Token: op.Token, Value: op.Element, Int: op.Base}
	}
	s.env.reset()
	if we := s.handleModel(from, m); we != nil {
		// The model raised it before changing anything (it walks to the
		// base first), so the resource is as it was, and op unrecorded.
		s.broken = we
		close(s.broke)
		return "ERR " + we.Error()
	}
	rep, obs := s.env.sent, s.env.seen
	if len(rep) != 1 || len(obs) != 1 {
		panic(fmt.Sprintf("resource: broken invariant: %d replies and %d observations for one request", len(rep), len(obs)))
	}
	op.At = time.Since(s.start)
	op.Version = rep[0].Int
	if op.Kind == Read {
		s.ops = append(s.ops, op)
		set := s.res.Set(op.Version)
		if len(set) == 0 {
			return fmt.Sprintf("OK %d -", op.Version)
		}
		var b strings.Builder
		for i, e := range set {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatUint(e, 10))
		}
		return fmt.Sprintf("OK %d %s", op.Version, b.String())
	}
	op.Accepted = obs[0].OK
	if !op.Accepted {
		op.Reason = simres.Refusal(obs[0].Err, obs[0].Lock, obs[0].Token, obs[0].Want)
	}
	s.ops = append(s.ops, op)
	if op.Accepted {
		return fmt.Sprintf("OK %d", op.Version)
	}
	return fmt.Sprintf("NO %d %s %s", op.Version, errName(obs[0].Err), op.Reason)
}

// handleModel hands m to the model resource, and returns the
// *resource.WindowError it panics with for a write too stale to judge, so
// that one request does not crash the server. Any other panic is a bug
// and goes on. s.mu is held.
func (s *Server) handleModel(from network.Endpoint, m proto.Msg) (we *simres.WindowError) {
	defer func() {
		if v := recover(); v != nil {
			e, ok := v.(*simres.WindowError)
			if !ok {
				panic(v)
			}
			we = e
		}
	}()
	s.res.Handle(&s.env, from, m)
	return nil
}

func errName(e proto.Err) string {
	switch e {
	case proto.StaleToken:
		return "stale-token"
	case proto.NotOwner:
		return "not-owner"
	}
	return "rejected"
}

// Ops returns a copy of the record, in the order served.
func (s *Server) Ops() []Op {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Op(nil), s.ops...)
}

// Final is the set at the current version, sorted: the resource's final
// set when the run is over.
func (s *Server) Final() []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.res.Final()
}

// History converts the record into the checker's reads and writes.
// holdID names the hold of client under lock value lock, or 0 when the
// client never held it; the harness builds it from the holds its clients
// reported, as model.World does.
func (s *Server) History(holdID func(client string, lock uint64) int) ([]check.Read, []check.Write) {
	var reads []check.Read
	var writes []check.Write
	for _, op := range s.Ops() {
		id := holdID(op.Client, op.Lock)
		if op.Kind == Read {
			reads = append(reads, check.Read{Client: op.Client, HoldID: id, At: op.At})
			continue
		}
		writes = append(writes, check.Write{Client: op.Client, HoldID: id, At: op.At, Element: op.Element, Accepted: op.Accepted, Reason: op.Reason})
	}
	return reads, writes
}
