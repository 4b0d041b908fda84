package redis_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/internal/actortest"
	"github.com/redlocksim/redlocksim/model/internal/script"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/story"
	"github.com/redlocksim/redlocksim/sim"
)

// TestScripts runs the step scripts in testdata/*.txt (see package
// model/internal/script; rewrite them with -rewrite). Commands:
//
//	node n1 [persistence=none|everysec|always] [clock-step=AT:BY]...
//	                              one node and probes c1, c2 (true time 0, no latency)
//	set C KEY VALUE nx px=TTL     C sends SET KEY VALUE NX PX TTL now
//	get C KEY                     C sends GET KEY now
//	release C KEY VALUE           C sends the compare-and-delete script now
//	extend C KEY VALUE px=TTL     C sends the compare-and-extend script now
//	incr C KEY                    C sends INCR KEY now
//	advance D                     run D of true time; print the node's records and the replies
//	crash [power-loss]            the node goes down now
//	restart                       the node starts again now
//	pttl KEY                      what is left of KEY's TTL on the node's wall clock
//	                              (read from the node's state, not sent: PTTL is not modelled)
//
// VALUE is a number or a lock value as the narration prints it (c1#2).
// A clock-step is scheduled when the node is made (the clock of a process
// is fixed at creation) and narrated when it happens.
func TestScripts(t *testing.T) {
	script.Walk(t, "testdata", func(t *testing.T) script.Commands {
		s := &nodeScript{t: t}
		return script.Commands{First: "node", Run: map[string]func(c *script.Case) string{
			"node": s.node, "set": s.set, "get": s.get, "release": s.release, "extend": s.extend, "incr": s.incr,
			"advance": s.advance, "crash": s.crash, "restart": s.restart, "pttl": s.pttl,
		}}
	})
}

type nodeScript struct {
	t       *testing.T
	w       *actortest.World
	n       *redis.Node
	p       *actortest.Proc
	probes  map[string]*actortest.Probe
	req     uint64
	records int // trace records printed so far
	seen    map[string]int
	sent    []proto.Kind // sent[req-1] is request req's kind
}

func (s *nodeScript) set(c *script.Case) string {
	if !c.Has("nx") {
		c.Fatalf("only SET ... NX is modelled: add nx")
	}
	ttl := px(c)
	return s.send(c, proto.Msg{Kind: proto.SetNX, Key: c.Word(1, "key"), Value: c.LockValue(c.Word(2, "value")), TTL: ttl})
}

func (s *nodeScript) get(c *script.Case) string {
	return s.send(c, proto.Msg{Kind: proto.Get, Key: c.Word(1, "key")})
}

func (s *nodeScript) release(c *script.Case) string {
	return s.send(c, proto.Msg{Kind: proto.CompareDel, Key: c.Word(1, "key"), Value: c.LockValue(c.Word(2, "value"))})
}

func (s *nodeScript) extend(c *script.Case) string {
	return s.send(c, proto.Msg{Kind: proto.CompareExtend, Key: c.Word(1, "key"), Value: c.LockValue(c.Word(2, "value")), TTL: px(c)})
}

func (s *nodeScript) incr(c *script.Case) string {
	return s.send(c, proto.Msg{Kind: proto.Incr, Key: c.Word(1, "key")})
}

func (s *nodeScript) advance(c *script.Case) string {
	d := c.Dur(c.Word(0, "duration"))
	s.w.Run(s.w.Now() + d)
	return s.flush()
}

func (s *nodeScript) crash(c *script.Case) string {
	s.w.CrashNarrated(s.p, c.Has("power-loss"))
	return s.flush()
}

func (s *nodeScript) restart(c *script.Case) string {
	s.w.RestartNarrated(s.p)
	return s.flush()
}

func (s *nodeScript) pttl(c *script.Case) string {
	k := c.Word(0, "key")
	wall := s.p.Read(proto.Wall)
	v, exp, ok := s.n.Value(k, wall)
	switch {
	case !ok:
		return fmt.Sprintf("n1 wall %v: %s is absent (PTTL -2)", wall, k)
	case exp == redis.NoExpiry:
		return fmt.Sprintf("n1 wall %v: %s = %s, no expiry (PTTL -1)", wall, k, check.ElementName(v))
	}
	return fmt.Sprintf("n1 wall %v: %s = %s, expires at wall %v (PTTL %v)", wall, k, check.ElementName(v), exp, exp-wall)
}

func (s *nodeScript) node(c *script.Case) string {
	if c.Word(0, "name") != "n1" {
		c.Fatalf("the node is called n1")
	}
	var cfg redis.Config
	var spec clocks.Spec
	for _, a := range c.Args[1:] {
		switch a.Key {
		case "persistence":
			p, err := redis.ParsePersistence(a.Val)
			if err != nil {
				c.Fatalf("%v", err)
			}
			cfg.Persistence = p
		case "clock-step":
			at, by := c.AtBy(a.Val)
			spec.Steps = append(spec.Steps, clocks.Step{At: at, By: by})
		default:
			c.Fatalf("unknown option %q (valid: persistence=, clock-step=)", a.Key)
		}
	}
	s.w = actortest.New(s.t, 1, true)
	s.n = redis.New(cfg)
	s.p = s.w.Add("n1", s.n, spec)
	s.probes = map[string]*actortest.Probe{"c1": s.w.AddProbe("c1"), "c2": s.w.AddProbe("c2")}
	s.w.NarrateClockSteps("n1", spec)
	s.w.Start()
	return s.flush()
}

func (s *nodeScript) send(c *script.Case, m proto.Msg) string {
	name := c.Word(0, "client")
	pr, ok := s.probes[name]
	if !ok {
		c.Fatalf("no client %q (valid: c1, c2)", name)
	}
	s.req++
	m.Req = s.req
	s.sent = append(s.sent, m.Kind)
	pr.Send(s.w.Now(), "n1", m)
	return fmt.Sprintf("%s %s sends #%d %s", sim.FormatTime(s.w.Now()), name, m.Req, request(m))
}

// flush prints the records and replies since the last flush, in time
// order (records first at equal times: a reply leaves after its command ran).
func (s *nodeScript) flush() string {
	type line struct {
		at   time.Duration
		text string
	}
	var ls []line
	recs := s.w.Kernel().Trace().Records()
	for _, r := range recs[s.records:] {
		ls = append(ls, line{r.At, sim.FormatTime(r.At) + " " + r.Actor + " " + story.Sentence(r)})
	}
	s.records = len(recs)
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	for _, name := range []string{"c1", "c2"} {
		got := s.probes[name].Received()
		for _, g := range got[s.seen[name]:] {
			ls = append(ls, line{g.At, fmt.Sprintf("%s %s gets #%d %s", sim.FormatTime(g.At), name, g.Req, reply(s.sent[g.Req-1], g.Msg))})
		}
		s.seen[name] = len(got)
	}
	// A stable merge by time: records, then c1's replies, then c2's.
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && ls[j].at < ls[j-1].at; j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l.text + "\n")
	}
	if b.Len() == 0 {
		return fmt.Sprintf("%s (nothing happened)", sim.FormatTime(s.w.Now()))
	}
	return b.String()
}

func request(m proto.Msg) string {
	switch m.Kind {
	case proto.SetNX:
		return fmt.Sprintf("SET %s %s NX PX %v", m.Key, check.ElementName(m.Value), m.TTL)
	case proto.Get:
		return "GET " + m.Key
	case proto.CompareDel:
		return fmt.Sprintf("EVAL release %s %s", m.Key, check.ElementName(m.Value))
	case proto.CompareExtend:
		return fmt.Sprintf("EVAL extend %s %s %v", m.Key, check.ElementName(m.Value), m.TTL)
	case proto.Incr:
		return "INCR " + m.Key
	}
	return m.Kind.String()
}

// reply prints a reply as redis-cli would, for the request kind it answers.
func reply(k proto.Kind, m proto.Msg) string {
	switch {
	case m.Err != proto.OK:
		return "(error) " + m.Err.String()
	case k == proto.SetNX && m.OK:
		return "OK"
	case k == proto.SetNX:
		return "(nil) (NX: the key exists)"
	case k == proto.Get && !m.OK:
		return "(nil)"
	case k == proto.Get && m.Int != 0:
		return fmt.Sprintf("%q (a counter)", strconv.FormatInt(m.Int, 10))
	case k == proto.Get:
		return check.ElementName(m.Value)
	case k == proto.Incr && !m.OK:
		return "(error) ERR value is not an integer or out of range"
	}
	return fmt.Sprintf("(integer) %d", m.Int)
}

// px is the px=TTL argument, which the command needs.
func px(c *script.Case) time.Duration {
	v, ok := c.Get("px")
	if !ok {
		c.Fatalf("missing px=TTL")
	}
	return c.Dur(v)
}
