package zookeeper

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/redlocksim/redlocksim/cmd/internal/real/belief"
)

// connect opens a go-zookeeper connection with the session timeout t,
// calling cb (if not nil) with every event as it happens: go-zookeeper's
// event channel drops events when nobody reads it, its callback does not.
// logs nil: none.
func connect(servers []string, t time.Duration, cb func(zk.Event), logs ...zk.Logger) (*zk.Conn, error) {
	var logger zk.Logger = log.New(discard{}, "", 0)
	if len(logs) > 0 {
		logger = logs[0]
	}
	conn, _, err := zk.Connect(servers, t, zk.WithLogInfo(false), zk.WithEventCallback(cb), zk.WithLogger(logger))
	if err != nil {
		return nil, fmt.Errorf("zookeeper client of %v: %w", servers, err)
	}
	return conn, nil
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// waitSession waits up to d for conn to have a session.
func waitSession(conn *zk.Conn, d time.Duration) error {
	deadline := time.Now().Add(d)
	for conn.State() != zk.StateHasSession {
		if time.Now().After(deadline) {
			return fmt.Errorf("no zookeeper session within %v (state %v)", d, conn.State())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// LockConfig is a client's view of the lock.
type LockConfig struct {
	Servers        []string      // the servers' client addresses, as this client reaches them (through its proxies)
	Path           string        // the lock's path, e.g. "/lock": its nodes are its children
	SessionTimeout time.Duration // asked of the servers; whole milliseconds
	// EndAtSuspended: the holder stops believing at SUSPENDED rather than
	// at LOST: Curator's default StandardConnectionStateErrorPolicy
	// (model/client.ErrorPolicy.EndsAtSuspended).
	EndAtSuspended bool
}

// Locker is one client's lock: one session at a time (a new one after
// LOST), and the recipe on it.
type Locker struct {
	cfg LockConfig
	mu  sync.Mutex
	s   *session // nil: none yet, or the last one was LOST
}

// NewLocker checks cfg. It connects on Warm or the first Lock.
func NewLocker(cfg LockConfig) (*Locker, error) {
	switch {
	case len(cfg.Servers) == 0:
		return nil, errors.New("zookeeper lock: no servers")
	case !strings.HasPrefix(cfg.Path, "/") || strings.HasSuffix(cfg.Path, "/"):
		return nil, fmt.Errorf("zookeeper lock: path %q is not an absolute znode path", cfg.Path)
	case cfg.SessionTimeout < time.Millisecond || cfg.SessionTimeout%time.Millisecond != 0:
		return nil, fmt.Errorf("zookeeper lock: session timeout %v is not whole milliseconds", cfg.SessionTimeout)
	}
	return &Locker{cfg: cfg}, nil
}

// Warm opens the session and makes the lock's path (a persistent node;
// Curator makes it a container on demand), so that the first Lock pays
// for neither.
func (l *Locker) Warm(ctx context.Context) error {
	s, err := l.session(ctx)
	if err != nil {
		return err
	}
	_, err = s.conn.Create(l.cfg.Path, nil, 0, zk.WorldACL(zk.PermAll))
	if err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return fmt.Errorf("zookeeper lock: create %s: %w", l.cfg.Path, err)
	}
	return nil
}

// Close closes the session, which deletes its nodes at once.
func (l *Locker) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s != nil {
		l.s.conn.Close()
		l.s = nil
	}
	return nil
}

// session is the current session, opened if there is none, waiting for
// the servers' answer until ctx ends.
func (l *Locker) session(ctx context.Context) (*session, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s != nil && !l.s.isLost() {
		return l.s, nil
	}
	s := &session{timeout: l.cfg.SessionTimeout, has: make(chan struct{}), suspended: make(chan struct{}), lost: make(chan struct{})}
	conn, err := connect(l.cfg.Servers, l.cfg.SessionTimeout, s.event, log.New(os.Stderr, "go-zookeeper: ", log.Lmicroseconds))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	select {
	case <-s.has:
	case <-s.lost:
		return nil, fmt.Errorf("zookeeper lock: session LOST before it began: %s", s.why())
	case <-ctx.Done():
		conn.Close()
		return nil, fmt.Errorf("zookeeper lock: no session: %w", ctx.Err())
	}
	l.s = s
	return s, nil
}

// session follows one go-zookeeper session through Curator's connection
// states (ConnectionStateManager).
type session struct {
	timeout time.Duration
	mu      sync.Mutex
	conn    *zk.Conn
	id      int64
	has     chan struct{} // closed once the servers grant the session
	// suspended is closed at SUSPENDED and replaced at RECONNECTED.
	suspended   chan struct{}
	isSuspended bool
	lost        chan struct{} // closed at LOST
	lostWhy     string
	lostTimer   *time.Timer
}

// event moves the connection state on one of go-zookeeper's session
// events. It runs on go-zookeeper's connection loop, so it only notes and
// signals: a LOST session's connection is closed from another goroutine.
func (s *session) event(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lostWhy != "" {
		return
	}
	switch ev.State {
	case zk.StateHasSession:
		if s.conn == nil {
			// The first answer can come before Connect has returned the
			// connection: the session id is read at the next event.
			break
		}
		id := s.conn.SessionID()
		switch {
		case s.id == 0:
			s.id = id
		case id != s.id:
			// A new session: the old one expired (go-zookeeper said
			// so first, and that was LOST).
			s.loseLocked("the session expired")
			return
		}
		if s.isSuspended { // RECONNECTED
			s.isSuspended = false
			s.suspended = make(chan struct{})
			s.lostTimer.Stop()
		}
		select {
		case <-s.has:
		default:
			close(s.has)
		}
	case zk.StateDisconnected:
		select {
		case <-s.has:
		default:
			return // not connected yet: no SUSPENDED before the first session
		}
		if !s.isSuspended {
			s.isSuspended = true
			close(s.suspended)
			s.lostTimer = time.AfterFunc(s.timeout, func() {
				s.mu.Lock()
				defer s.mu.Unlock()
				if s.isSuspended {
					s.loseLocked("no answer for a session timeout after SUSPENDED")
				}
			})
		}
	case zk.StateExpired:
		s.loseLocked("the session expired")
	}
}

// loseLocked is Curator's LOST: the session is given up and its
// connection closed; the next acquisition opens a new one.
func (s *session) loseLocked(why string) {
	if s.lostWhy != "" {
		return
	}
	s.lostWhy = why
	if s.lostTimer != nil {
		s.lostTimer.Stop()
	}
	close(s.lost)
	if c := s.conn; c != nil {
		go c.Close()
	}
}

func (s *session) isLost() bool {
	select {
	case <-s.lost:
		return true
	default:
		return false
	}
}

func (s *session) why() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lostWhy
}

func (s *session) suspendedCh() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.suspended
}

// Hold is one acquisition of the lock.
type Hold struct {
	Token uint64 // the lock node's czxid: the fencing token
	Node  string // the lock node's path

	s *session
	b *belief.Belief
}

// ErrNodeGone is a try that failed because its node went with its
// expired session before the lock came: the caller tries again.
var ErrNodeGone = errors.New("the lock node went with its session")

// Lock takes the lock as Curator's InterProcessMutex.acquire does: it
// creates its node, then waits behind its predecessors until it is the
// lowest or ctx ends. On failure it deletes its node (best effort) and
// returns the error; ErrNodeGone when the session expired under it.
func (l *Locker) Lock(ctx context.Context, value uint64) (*Hold, error) {
	s, err := l.session(ctx)
	if err != nil {
		return nil, err
	}
	data := binary.BigEndian.AppendUint64(nil, value)
	ours, err := s.conn.CreateProtectedEphemeralSequential(l.cfg.Path+"/lock-", data, zk.WorldACL(zk.PermAll))
	if err != nil {
		return nil, l.failed(s, "", fmt.Errorf("create the lock node: %w", err))
	}
	ok, st, err := s.conn.Exists(ours)
	switch {
	case err != nil:
		return nil, l.failed(s, ours, fmt.Errorf("read the lock node's czxid: %w", err))
	case !ok:
		return nil, l.failed(s, "", ErrNodeGone)
	}
	name := ours[strings.LastIndex(ours, "/")+1:]
	for {
		kids, _, err := s.conn.Children(l.cfg.Path)
		if err != nil {
			return nil, l.failed(s, ours, fmt.Errorf("list the lock's nodes: %w", err))
		}
		sortBySequence(kids)
		i := slices.Index(kids, name)
		switch {
		case i < 0:
			return nil, l.failed(s, "", ErrNodeGone)
		case i == 0:
			h := &Hold{Token: uint64(st.Czxid), Node: ours, s: s, b: belief.New()}
			go h.watch(l.cfg.EndAtSuspended)
			return h, nil
		}
		_, _, ch, err := s.conn.GetW(l.cfg.Path + "/" + kids[i-1])
		if errors.Is(err, zk.ErrNoNode) {
			continue // gone already: list again
		}
		if err != nil {
			return nil, l.failed(s, ours, fmt.Errorf("watch the predecessor: %w", err))
		}
		select {
		case ev := <-ch:
			if ev.Type == zk.EventNotWatching {
				return nil, l.failed(s, ours, fmt.Errorf("the predecessor's watch ended: %v", ev.Err))
			}
		case <-s.lost:
			return nil, l.failed(s, "", fmt.Errorf("LOST while acquiring: %s", s.why()))
		case <-ctx.Done():
			return nil, l.failed(s, ours, ctx.Err())
		}
	}
}

// failed deletes node (if any) as Curator's deleteOurPath does, in the
// background (the session may be gone), and wraps err.
func (l *Locker) failed(s *session, node string, err error) error {
	if node != "" && !s.isLost() {
		go func() { _ = s.conn.Delete(node, -1) }()
	}
	if errors.Is(err, ErrNodeGone) {
		return err
	}
	return fmt.Errorf("zookeeper lock: %w", err)
}

// sortBySequence sorts lock nodes by their sequence number, the ten digits
// after "lock-" (Curator's StandardLockInternalsDriver.fixForSorting),
// whatever their protection prefix.
func sortBySequence(kids []string) {
	seq := func(n string) string {
		if i := strings.LastIndex(n, "lock-"); i >= 0 {
			return n[i+len("lock-"):]
		}
		return n
	}
	slices.SortStableFunc(kids, func(a, b string) int { return cmp.Compare(seq(a), seq(b)) })
}

// watch ends the belief at the state the policy names: LOST, or
// SUSPENDED already.
func (h *Hold) watch(atSuspended bool) {
	var sus <-chan struct{}
	if atSuspended {
		sus = h.s.suspendedCh()
	}
	select {
	case <-h.b.Released():
	case <-h.s.lost:
	case <-sus:
	}
	h.b.End()
}

// Lost closes when the holder stops believing: at LOST, or at SUSPENDED
// with EndAtSuspended; also on Release.
func (h *Hold) Lost() <-chan struct{} { return h.b.Lost() }

// LostWhy says which state ended the belief.
func (h *Hold) LostWhy() string {
	if w := h.s.why(); w != "" {
		return "LOST: " + w
	}
	select {
	case <-h.b.Released():
		return "released"
	default:
		return "SUSPENDED: the connection was silent two thirds of the session timeout"
	}
}

// Release deletes the lock node, as InterProcessMutex.release does; the
// session stays for the next acquisition. A node already gone with its
// session is no error.
func (h *Hold) Release(ctx context.Context) error {
	if !h.b.Release() {
		return errors.New("zookeeper lock: released twice")
	}
	if h.s.isLost() {
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- h.s.conn.Delete(h.Node, -1) }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, zk.ErrNoNode) {
			return fmt.Errorf("zookeeper lock: delete %s: %w", h.Node, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("zookeeper lock: delete %s: %w", h.Node, ctx.Err())
	}
}
