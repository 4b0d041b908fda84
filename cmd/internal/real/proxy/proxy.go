package proxy

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"

	"github.com/redlocksim/redlocksim/network"
)

// Dir names the directions of a link a fault applies to. The zero value is
// invalid.
type Dir uint8

const (
	Upstream   Dir = 1 + iota // client to server
	Downstream                // server to client
	Both                      // both directions
)

// String is the direction's name, as toxiproxy spells the first two.
func (d Dir) String() string {
	switch d {
	case Upstream:
		return "upstream"
	case Downstream:
		return "downstream"
	case Both:
		return "both"
	}
	return "Dir(" + strconv.Itoa(int(d)) + ")"
}

// ErrClosed is returned by every method of a closed Set.
var ErrClosed = errors.New("proxy set is closed")

// Set is a group of links, each a proxy on loopback in front of one server
// address. Create one with New and Close it when done.
type Set struct {
	server *toxiproxy.ApiServer
	seed   uint64
	done   chan struct{} // closed by Close: every toxic stops holding

	mu     sync.Mutex
	links  map[string]*link
	closed bool
}

type link struct {
	proxy *toxiproxy.Proxy
	dirs  [2]*control // [Upstream-1], [Downstream-1]
}

// New returns an empty set. Latency draws are seeded from seed. toxiproxy's
// own log (errors only: a failed upstream dial, say) goes to log as JSON
// lines; nil discards it.
func New(log io.Writer, seed uint64) *Set {
	logger := zerolog.Nop()
	if log != nil {
		logger = zerolog.New(log).Level(zerolog.ErrorLevel).With().Timestamp().Logger()
	}
	return &Set{
		server: toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), logger),
		seed:   seed,
		done:   make(chan struct{}),
		links:  make(map[string]*link),
	}
}

// Link starts a proxy named name on a free loopback port in front of
// upstream (host:port) and returns the address clients should dial
// instead. The link starts with no latency, no spike and no cut. A name may
// be used once per Set.
func (s *Set) Link(name, upstream string) (listen string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", ErrClosed
	}
	if name == "" {
		return "", errors.New("proxy link name is empty")
	}
	if _, dup := s.links[name]; dup {
		return "", fmt.Errorf("proxy link %q already exists", name)
	}
	p := toxiproxy.NewProxy(s.server, name, "127.0.0.1:0", upstream)
	l := &link{proxy: p}
	for i, dir := range []Dir{Upstream, Downstream} {
		ctl := &control{
			name: name + " " + dir.String(),
			rng:  rand.New(rand.NewPCG(s.seed, streamID(name, dir))),
			done: s.done,
		}
		// Installed before Start, so no connection exists yet and the toxic
		// is never interrupted by a change of the chain.
		body := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q}`, "redlocksim-"+dir.String(), toxicType, dir.String())
		w, err := p.Toxics.AddToxicJson(strings.NewReader(body))
		if err != nil {
			return "", fmt.Errorf("proxy link %q: install the %v toxic: %w", name, dir, err)
		}
		w.Toxic.(*linkToxic).ctl = ctl
		l.dirs[i] = ctl
	}
	if err := p.Start(); err != nil {
		return "", fmt.Errorf("proxy link %q to %s: %w", name, upstream, err)
	}
	s.links[name] = l
	return p.Listen, nil
}

// streamID derives a direction's random stream from the link's name, with
// FNV-1a, so that adding a link leaves the others' draws unchanged.
func streamID(name string, dir Dir) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	h.Write([]byte{0, byte(dir)})
	return h.Sum64()
}

// controls returns the control objects of dir on link name.
func (s *Set) controls(name string, dir Dir) ([]*control, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	l, ok := s.links[name]
	if !ok {
		return nil, fmt.Errorf("no proxy link %q", name)
	}
	switch dir {
	case Upstream, Downstream:
		return []*control{l.dirs[dir-1]}, nil
	case Both:
		return l.dirs[:], nil
	}
	return nil, fmt.Errorf("proxy link %q: direction %v is not upstream, downstream or both", name, dir)
}

// each does do to the controls of dir of link name: what SetLatency,
// Spike, Cut and Heal change, each on its own control.
func (s *Set) each(name string, dir Dir, do func(*control)) error {
	cs, err := s.controls(name, dir)
	if err != nil {
		return err
	}
	for _, c := range cs {
		do(c)
	}
	return nil
}

// SetLatency makes every chunk sent on dir of link name from now on wait a
// draw from lat (on top of the loopback's own delay). lat must be valid.
func (s *Set) SetLatency(name string, dir Dir, lat network.Latency) error {
	if err := lat.Validate(); err != nil {
		return fmt.Errorf("proxy link %q: %w", name, err)
	}
	return s.each(name, dir, func(c *control) { c.setLatency(lat) })
}

// Spike delays by extra every chunk sent on dir of link name from now
// until now+window. Overlapping spikes add up; FIFO order still holds, so a
// spike also holds back later chunks.
func (s *Set) Spike(name string, dir Dir, extra, window time.Duration) error {
	if extra <= 0 || window <= 0 {
		return fmt.Errorf("proxy link %q: spike of %v for %v; want both positive", name, extra, window)
	}
	now := time.Now()
	return s.each(name, dir, func(c *control) { c.addSpike(now, now.Add(window), extra) })
}

// Cut holds every byte on dir of link name, from now until Heal. Bytes
// already due but not yet delivered are held too. Cutting a cut direction
// does nothing.
func (s *Set) Cut(name string, dir Dir) error {
	return s.each(name, dir, (*control).cut)
}

// Heal lifts the cut of both directions of link name; held bytes flow at
// once, in order. Healing a link that is not cut does nothing.
func (s *Set) Heal(name string) error {
	return s.each(name, Both, (*control).heal)
}

// IsCut reports whether dir of link name is cut now (Both: either).
func (s *Set) IsCut(name string, dir Dir) (bool, error) {
	cs, err := s.controls(name, dir)
	if err != nil {
		return false, err
	}
	for _, c := range cs {
		c.mu.Lock()
		cut := c.healed != nil
		c.mu.Unlock()
		if cut {
			return true, nil
		}
	}
	return false, nil
}

// Close stops every proxy, closes its connections and discards the bytes
// it held. It is safe to call more than once.
func (s *Set) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	links := s.links
	s.links = nil
	s.mu.Unlock()
	for _, l := range links {
		l.proxy.Stop()
	}
}
