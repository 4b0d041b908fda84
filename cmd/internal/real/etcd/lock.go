package etcd

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"

	"github.com/redlocksim/redlocksim/cmd/internal/real/belief"
)

// LockConfig is a client's view of the lease lock.
type LockConfig struct {
	Endpoints []string      // the members' client addresses, as this client reaches them (through its proxies)
	Key       string        // the lock's prefix, e.g. "/lock"
	TTL       time.Duration // the lease TTL: a positive whole number of seconds
	// DialTimeout bounds the connection to the cluster; 0 means 5 s.
	DialTimeout time.Duration
}

// Locker is one client's etcd lock: a clientv3 client and, while it holds
// or waits for the lock, one session (lease) and one mutex.
type Locker struct {
	cfg LockConfig
	cli *clientv3.Client
}

// NewLocker connects to the cluster. It does not wait for a member to
// answer; the first Lock does.
func NewLocker(cfg LockConfig) (*Locker, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("etcd lock: no endpoints")
	}
	if cfg.Key == "" {
		return nil, errors.New("etcd lock: empty key")
	}
	if cfg.TTL <= 0 || cfg.TTL%time.Second != 0 {
		return nil, fmt.Errorf("etcd lock: lease TTL %v is not a positive whole number of seconds, the only TTLs etcd grants", cfg.TTL)
	}
	if cfg.DialTimeout == 0 {
		cfg.DialTimeout = 5 * time.Second
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   cfg.Endpoints,
		DialTimeout: cfg.DialTimeout,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd lock: client of %v: %w", cfg.Endpoints, err)
	}
	return &Locker{cfg: cfg, cli: cli}, nil
}

// Warm waits until the cluster answers a read through this client, so
// that the first Lock does not pay for the connection.
func (l *Locker) Warm(ctx context.Context) error {
	if _, err := l.cli.Get(ctx, l.cfg.Key, clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil {
		return fmt.Errorf("etcd lock: reach %v: %w", l.cfg.Endpoints, err)
	}
	return nil
}

// Close closes the client; a session still open is orphaned, and its
// lease expires on the server after its TTL.
func (l *Locker) Close() error { return l.cli.Close() }

// Hold is one acquisition of the lock.
type Hold struct {
	Token uint64           // the lock's Header().Revision: the fencing token
	Lease clientv3.LeaseID // the session's lease
	Key   string           // the session's key under the lock's prefix

	sess  *concurrency.Session
	mutex *concurrency.Mutex
	b     *belief.Belief

	mu       sync.Mutex
	deadline time.Time // last keep-alive reply received + TTL (clientv3's own reckoning)
}

// Lock grants a lease of the configured TTL, kept alive by clientv3, and
// takes the lock with concurrency.Mutex, waiting behind earlier holders
// until ctx ends. On failure it revokes the lease it granted (best effort)
// and returns the error.
func (l *Locker) Lock(ctx context.Context) (*Hold, error) {
	// The grant NewSession would make with WithTTL, made here so that ctx
	// bounds it; the session itself lives on the client's context, so that
	// its keep-alives outlive ctx.
	ttl := int64(l.cfg.TTL / time.Second)
	granted := time.Now()
	lease, err := l.cli.Grant(ctx, ttl)
	if err != nil {
		return nil, fmt.Errorf("etcd lock: lease grant: %w", err)
	}
	sess, err := concurrency.NewSession(l.cli, concurrency.WithTTL(int(ttl)), concurrency.WithLease(lease.ID))
	if err != nil {
		l.revoke(lease.ID)
		return nil, fmt.Errorf("etcd lock: session: %w", err)
	}
	h := &Hold{
		Lease:    sess.Lease(),
		sess:     sess,
		b:        belief.New(),
		deadline: granted.Add(l.cfg.TTL),
	}
	// A second listener on the session's lease: clientv3 sends every
	// keep-alive reply to each. Its context is the session's, so it ends
	// with the session.
	replies, err := l.cli.KeepAlive(sess.Ctx(), sess.Lease())
	if err != nil {
		l.abandon(sess)
		return nil, fmt.Errorf("etcd lock: watch the lease: %w", err)
	}
	go h.watch(replies, l.cfg.TTL)
	m := concurrency.NewMutex(sess, l.cfg.Key)
	if err := m.Lock(ctx); err != nil {
		h.b.End()
		l.abandon(sess)
		return nil, fmt.Errorf("etcd lock: %w", err)
	}
	h.mutex, h.Key = m, m.Key()
	h.Token = uint64(m.Header().Revision)
	return h, nil
}

// abandon ends a session and revokes its lease, waiting at most a second
// beyond the TTL: the lease expires anyway.
func (l *Locker) abandon(sess *concurrency.Session) {
	sess.Orphan()
	l.revoke(sess.Lease())
}

func (l *Locker) revoke(id clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(context.Background(), l.cfg.TTL+time.Second)
	defer cancel()
	l.cli.Revoke(ctx, id)
}

// watch ends the hold when the lease is over: at the deadline its last
// keep-alive reply gave, or when clientv3 closes the session.
func (h *Hold) watch(replies <-chan *clientv3.LeaseKeepAliveResponse, ttl time.Duration) {
	defer h.b.End()
	t := time.NewTimer(time.Until(h.Deadline()))
	defer t.Stop()
	for {
		select {
		case <-h.b.Released():
			return
		case <-h.sess.Done():
			return
		case <-t.C:
			// A frozen process wakes with both the timer and replies
			// waiting: read the replies first, as the simulator hands a
			// woken actor what arrived before its timer.
			drained := false
			for !drained {
				select {
				case r, ok := <-replies:
					if !ok {
						return
					}
					h.renew(r, ttl)
				default:
					drained = true
				}
			}
			if d := time.Until(h.Deadline()); d > 0 {
				t.Reset(d)
				continue
			}
			return
		case r, ok := <-replies:
			if !ok {
				return
			}
			h.renew(r, ttl)
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
			t.Reset(time.Until(h.Deadline()))
		}
	}
}

// renew moves the deadline as clientv3 does on a keep-alive reply.
func (h *Hold) renew(r *clientv3.LeaseKeepAliveResponse, ttl time.Duration) {
	if r.TTL <= 0 {
		return
	}
	h.mu.Lock()
	h.deadline = time.Now().Add(time.Duration(r.TTL) * time.Second)
	h.mu.Unlock()
}

// Lost closes when the client's reckoning says the lease is over: its
// deadline passed without a keep-alive reply, the server said the lease is
// gone, or the session ended. It also closes on Release.
func (h *Hold) Lost() <-chan struct{} { return h.b.Lost() }

// Deadline is when the lease runs out by the client's reckoning: the last
// keep-alive reply's arrival plus the TTL (the grant's, before the first
// reply).
func (h *Hold) Deadline() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.deadline
}

// Release gives the lock up: it closes the session, which stops the
// keep-alives and revokes the lease, deleting the key with it, as the
// simulator's lease client does. It returns the revoke's error; the lease
// then expires on its own.
func (h *Hold) Release(ctx context.Context) error {
	if !h.b.Release() {
		return errors.New("etcd lock: released twice")
	}
	h.sess.Orphan()
	_, err := h.sess.Client().Revoke(ctx, h.Lease)
	if err != nil {
		return fmt.Errorf("etcd lock: revoke lease %x: %w", int64(h.Lease), err)
	}
	return nil
}
