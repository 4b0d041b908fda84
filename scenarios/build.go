package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/clocks"
	"github.com/redlocksim/redlocksim/model"
	"github.com/redlocksim/redlocksim/model/client"
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/model/redis"
	"github.com/redlocksim/redlocksim/model/resource"
	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/scenarios/internal/keypath"
	"github.com/redlocksim/redlocksim/scenarios/internal/tomldoc"
	"github.com/redlocksim/redlocksim/sim/field"
)

// The keys of each table, in the order README.md (the format) lists them.
var (
	topKeys      = []string{"name", "description", "lesson", "seed", "property", "liveness_limit", "duration", "debate", "expect", "lock", "workload", "resource", "nodes", "clients", "store", "sentinel", "network", "faults"}
	debateKeys   = []string{"claim", "by", "answer", "answer_by"}
	expectKeys   = []string{"mutex", "resource"}
	lockKeys     = []string{"preset", "algorithm", "key", "ttl", "request_timeout", "sequential", "quorum", "drift_factor", "drift_const", "validity_check", "elapsed_clock", "retries", "retry_delay", "retry_jitter", "wait_replicas", "wait_timeout", "extend", "extend_at", "max_extensions", "keepalive", "renewal", "extend_threshold", "fail_fast", "session_timeout", "tick", "error_policy", "lease_duration", "renew_deadline", "retry_period", "session_ttl", "lock_delay", "heartbeat_period"}
	workloadKeys = []string{"critical_section", "think", "iterations", "recheck_before_write", "recheck_margin", "request_timeout"}
	resourceKeys = []string{"mode", "tokens", "token_node", "token_key", "token_start", "service_time"}
	// nodeKeys may be set in [nodes] for every node and in [[nodes.node]]
	// for one.
	nodeKeys          = []string{"persistence", "fsync_every", "service_time", "replication_delay", "min_replicas_to_write", "min_replicas_max_lag", "restart_delay", "clock"}
	nodesKeys         = append([]string{"count", "names"}, append(slices.Clone(nodeKeys), "node")...)
	nodeOverrideKeys  = append([]string{"name", "replica_of"}, nodeKeys...)
	clientKeys        = []string{"start", "clock", "pauses"}
	clientsKeys       = []string{"count", "names", "start", "stagger", "clock", "pauses", "client"}
	clientOverrideKey = append([]string{"name"}, clientKeys...)
	pausesKeys        = []string{"every", "length"}
	clockKeys         = []string{"offset", "rate_ppm", "rate_spread_ppm", "steps", "rate_changes", "slews", "chrony"}
	storeClockKeys    = []string{"offset", "rate_ppm", "steps", "rate_changes", "slews"}
	storeKeys         = []string{"service_time", "lease_check_every", "clock"}
	sentinelKeys      = []string{"down_after", "ping_every"}
	networkKeys       = []string{"latency", "loss", "link", "partition_mode", "retransmit_limit"}
	linkKeys          = []string{"from", "to", "latency", "loss"}
	latencyKeys       = []string{"kind", "value", "min", "max", "mean", "median", "sigma", "p50", "p90", "p99", "p999", "p9999", "file", "format", "column", "unit", "tail", "tail_above"}
)

// maxProcesses bounds count and names, so that a typo cannot ask for a
// billion processes.
const maxProcesses = 1000

// Defaults, as README.md (the format) documents them.
var (
	defaultLatency = network.Uniform(500*time.Microsecond, 1500*time.Microsecond)
	defaultRedis   = redis.Config{
		Persistence:       redis.None,
		FsyncEvery:        redis.DefaultFsyncEvery,
		ServiceTime:       redis.DefaultServiceTime,
		MinReplicasMaxLag: redis.DefaultMinReplicasMaxLag,
	}
)

// defaultLock is the lock without a preset.
func defaultLock(ttl time.Duration) client.LockConfig {
	return client.LockConfig{
		Algorithm:      client.Redlock,
		Key:            "lock",
		TTL:            ttl,
		RequestTimeout: 50 * time.Millisecond,
		Quorum:         0,
		DriftFactor:    0.01,
		DriftConst:     2 * time.Millisecond,
		ValidityCheck:  true,
		ElapsedClock:   proto.Mono,
		Retries:        3,
		RetryDelay:     200 * time.Millisecond,
		RetryJitter:    100 * time.Millisecond,
		WaitTimeout:    time.Second,
		ExtendAt:       0.5,
		MaxExtensions:  3,
	}
}

func (d *decoder) scenario(raw map[string]any) *Scenario {
	s := &Scenario{Name: baseName(d.file), Seed: 1, Source: d.file}
	t := d.table("", raw, topKeys)
	if t.str("name", &s.Name) && strings.TrimSpace(s.Name) == "" {
		t.errf("name", "must not be empty (leave it out to use the file name %q)", baseName(d.file))
	}
	t.str("description", &s.Description)
	t.str("lesson", &s.Lesson)
	var seed int64
	if t.integer("seed", &seed, 0, math.MaxInt64) {
		s.Seed = uint64(seed)
	}
	enum(t, "property", &s.Property, func(p string) (string, error) {
		if slices.Contains(properties, p) {
			return p, nil
		}
		return "", fmt.Errorf("unknown property %q (valid: %s)", p, strings.Join(properties, ", "))
	})
	if t.dur("liveness_limit", &s.LivenessLimit, positive) && s.Property != Liveness {
		t.errf("liveness_limit", "applies only to property = %q, and this file's property is %q", Liveness, s.Property)
	}
	cfg := &s.Config
	cfg.Name = s.Name
	if t.require("duration", `how long the run lasts in virtual time, like "30s"`) {
		t.dur("duration", &cfg.Duration, positive)
	}
	d.duration = cfg.Duration
	d.debate(t.sub("debate", debateKeys), &s.Debate)
	d.expect(t.sub("expect", expectKeys), &s.Expect)
	cfg.Lock = d.lock(t.sub("lock", lockKeys))
	cfg.Work = d.workload(t.sub("workload", workloadKeys))
	var restartDelays []time.Duration
	cfg.Nodes, restartDelays = d.nodes(t.sub("nodes", nodesKeys), cfg.Lock.Algorithm)
	d.resource(t.sub("resource", resourceKeys), cfg)
	cfg.Clients = d.clients(t.sub("clients", clientsKeys))
	cfg.Store = d.store(t.sub("store", storeKeys))
	cfg.Sentinel = d.sentinel(t.sub("sentinel", sentinelKeys))
	cfg.Network = d.network(t.sub("network", networkKeys))
	defer func() { s.DataFiles = d.dataFiles }()
	for _, f := range t.tables("faults", faultKeys) {
		flt := d.fault(f)
		if flt.Kind.Takes("NoRestart") && !flt.NoRestart && !f.has("for") {
			// restart_delay is the file's default for a crash's for, so it
			// is resolved here and the model has no such field; a "0s"
			// given here stays 0s.
			for i, n := range cfg.Nodes {
				if n.Name == flt.Target {
					flt.For = restartDelays[i]
				}
			}
		}
		cfg.Faults = append(cfg.Faults, flt)
	}
	return s
}

// debate decodes [debate]: a claim and who made it are required once the
// table is there, the answer and who gave it go together.
func (d *decoder) debate(t *table, db *Debate) {
	if len(t.m) == 0 {
		return
	}
	text := func(k string, dst *string) {
		if t.str(k, dst) && strings.TrimSpace(*dst) == "" {
			t.errf(k, "must not be empty")
		}
	}
	people := func(k string, dst *[]string) {
		if !t.strings(k, dst) {
			return
		}
		if len(*dst) == 0 {
			t.errf(k, "must name at least one person, like [\"Kleppmann\"]")
		}
		for i, p := range *dst {
			if strings.TrimSpace(p) == "" {
				t.d.errAt(keypath.Index(t.key(k), i), "must not be empty")
			}
		}
	}
	if t.require("claim", `the argument the scenario answers, in a sentence`) {
		text("claim", &db.Claim)
	}
	if t.require("by", `who made the claim, like ["Kleppmann"]`) {
		people("by", &db.By)
	}
	text("answer", &db.Answer)
	people("answer_by", &db.AnswerBy)
	switch {
	case t.has("answer") && !t.has("answer_by"):
		t.errf("answer_by", `required with answer: who answered the claim, like ["antirez"]`)
	case t.has("answer_by") && !t.has("answer"):
		t.errf("answer", "required with answer_by: the other side's answer, in a sentence or two")
	}
}

func (d *decoder) expect(t *table, e *Expect) {
	parse := func(s string) (string, error) {
		if s == Safe || s == Violation {
			return s, nil
		}
		return "", fmt.Errorf("unknown verdict %q (valid: %s, %s)", s, Safe, Violation)
	}
	enum(t, "mutex", &e.Mutex, parse)
	enum(t, "resource", &e.Resource, parse)
}

func parseElapsedClock(s string) (proto.Clock, error) {
	switch s {
	case "monotonic":
		return proto.Mono, nil
	case "wall":
		return proto.Wall, nil
	}
	return 0, fmt.Errorf("unknown clock %q (valid: monotonic, wall)", s)
}

func (d *decoder) lock(t *table) client.LockConfig {
	// The algorithm first: the key's, else the preset's, else Redlock's.
	// Those timed by their own keys (a session timeout, a lease duration)
	// take no ttl.
	var preset string
	hasPreset := t.str("preset", &preset)
	alg := client.Redlock
	var presetAlg client.Algorithm
	if hasPreset {
		if p, err := client.Preset(preset, 0); err == nil {
			alg, presetAlg = p.Algorithm, p.Algorithm
		}
	}
	algOK := !t.has("algorithm") || enum(t, "algorithm", &alg, client.ParseAlgorithm)
	if algOK && presetAlg.OwnTimes() && alg != presetAlg {
		// A Redis preset is a client library's parameters, which another
		// Redis algorithm can take; k8s-defaults and consul-defaults are
		// their algorithm's own times, which no other algorithm reads.
		t.errf("preset", "%s is %v's defaults, and this lock's algorithm is %v: drop one of the two", preset, presetAlg, alg)
	}
	var ttl time.Duration
	switch {
	case algOK && alg.OwnTimes():
		if t.has("ttl") {
			t.errf("ttl", "%v is timed by %s, not ttl", alg, alg.TTLKey())
		}
	case t.require("ttl", `the lock's time to live, like "10s"`):
		t.dur("ttl", &ttl, positive)
	}
	l := defaultLock(ttl)
	if hasPreset {
		p, err := client.Preset(preset, ttl)
		if err != nil {
			t.errf("preset", "%v", err)
		} else {
			// A preset sets the library's algorithm parameters; the
			// loader's defaults stay for what it leaves out.
			def := l
			l = p
			if l.WaitTimeout == 0 {
				l.WaitTimeout = def.WaitTimeout
			}
			if l.ExtendAt == 0 {
				l.ExtendAt = def.ExtendAt
			}
			if l.MaxExtensions == 0 {
				l.MaxExtensions = def.MaxExtensions
			}
		}
	}
	if algOK {
		if alg.OwnTimes() && (!hasPreset || l.Algorithm != alg) {
			l = alg.Defaults(l)
		}
		l.Algorithm = alg
	}
	if t.str("key", &l.Key) && l.Key == "" {
		t.errf("key", "must not be empty")
	}
	t.dur("request_timeout", &l.RequestTimeout, positive)
	t.boolean("sequential", &l.Sequential)
	t.count("quorum", &l.Quorum, 0, math.MaxInt32)
	t.float("drift_factor", &l.DriftFactor)
	t.dur("drift_const", &l.DriftConst, nonNegative)
	t.boolean("validity_check", &l.ValidityCheck)
	enum(t, "elapsed_clock", &l.ElapsedClock, parseElapsedClock)
	t.count("retries", &l.Retries, 0, math.MaxInt32)
	t.dur("retry_delay", &l.RetryDelay, nonNegative)
	t.dur("retry_jitter", &l.RetryJitter, nonNegative)
	t.count("wait_replicas", &l.WaitReplicas, 0, math.MaxInt32)
	t.dur("wait_timeout", &l.WaitTimeout, nonNegative)
	t.boolean("extend", &l.Extend)
	t.float("extend_at", &l.ExtendAt)
	t.count("max_extensions", &l.MaxExtensions, 0, math.MaxInt32)
	t.boolean("fail_fast", &l.FailFast)
	if enum(t, "renewal", &l.Renewal, client.ParseRenewal) && l.Renewal == client.AutoExtend && l.ExtendThreshold == 0 {
		l.ExtendThreshold = 500 * time.Millisecond // node-redlock's automaticExtensionThreshold
	}
	switch {
	case l.Renewal == client.AutoExtend:
		t.dur("extend_threshold", &l.ExtendThreshold, positive)
	case t.has("extend_threshold"):
		t.errf("extend_threshold", "only auto-extend renewal uses extend_threshold; renewal is %q", l.Renewal)
	}
	switch {
	case !algOK:
		t.dur("keepalive", &l.KeepAlive, positive)
	case l.Algorithm.Takes("keepalive"):
		l.KeepAlive = ttl / 3
		t.dur("keepalive", &l.KeepAlive, positive)
	case t.has("keepalive"):
		t.errf("keepalive", "only %s takes keepalive (the others keep their lock by their own keys); this lock's algorithm is %v", strings.Join(client.Taking("keepalive"), " and "), l.Algorithm)
	}
	if algOK {
		d.ownTimes(t, &l)
	}
	return l
}

// ownTimes reads the keys of the algorithms timed by their own keys, and
// refuses each such key given to an algorithm that does not take it,
// naming those that do.
func (d *decoder) ownTimes(t *table, l *client.LockConfig) {
	alg := l.Algorithm
	for _, k := range client.LockKeys() {
		if k == "keepalive" || !t.has(k) || alg.Takes(k) {
			continue
		}
		takers := client.Taking(k)
		verb := "takes"
		if len(takers) > 1 {
			verb = "take"
		}
		t.errf(k, "only %s %s %s; this lock's algorithm is %v", strings.Join(takers, " and "), verb, k, alg)
	}
	if !alg.OwnTimes() {
		return
	}
	t.dur(alg.TTLKey(), &l.TTL, positive)
	if k := alg.KeepAliveKey(); k != "" {
		t.dur(k, &l.KeepAlive, positive)
	}
	if alg.Takes("tick") {
		t.dur("tick", &l.Tick, positive)
	}
	if alg.Takes("error_policy") {
		enum(t, "error_policy", &l.ErrorPolicy, client.ParseErrorPolicy)
	}
	if alg.Takes("renew_deadline") {
		t.dur("renew_deadline", &l.RenewDeadline, positive)
	}
	if alg.Takes("lock_delay") {
		t.dur("lock_delay", &l.LockDelay, nonNegative)
	}
}

func (d *decoder) workload(t *table) client.WorkConfig {
	w := client.WorkConfig{
		CriticalSection: 100 * time.Millisecond,
		Think:           100 * time.Millisecond,
		RequestTimeout:  time.Second,
	}
	d.durOrDist(t, "critical_section", &w.CriticalSection, &w.CriticalSectionDist)
	d.durOrDist(t, "think", &w.Think, &w.ThinkDist)
	t.count("iterations", &w.Iterations, 0, math.MaxInt32)
	t.boolean("recheck_before_write", &w.RecheckBeforeWrite)
	t.dur("recheck_margin", &w.RecheckMargin, nonNegative)
	t.dur("request_timeout", &w.RequestTimeout, positive)
	return w
}

// resource fills cfg.Resource and the token part of cfg.Work; it needs the
// nodes for the default token node.
func (d *decoder) resource(t *table, cfg *model.Config) {
	r := model.ResourceConfig{Mode: resource.Unprotected}
	cfg.Work.Tokens = client.NoToken
	cfg.Work.FenceKey = "fence"
	if len(cfg.Nodes) > 0 {
		cfg.Work.FenceNode = cfg.Nodes[0].Name
	}
	enum(t, "mode", &r.Mode, resource.ParseMode)
	enum(t, "tokens", &cfg.Work.Tokens, func(s string) (client.TokenSource, error) {
		return parseTokens(s, cfg.Lock.Algorithm)
	})
	if cfg.Work.Tokens == client.IncrToken {
		t.name("token_node", &cfg.Work.FenceNode)
		if t.str("token_key", &cfg.Work.FenceKey) && cfg.Work.FenceKey == "" {
			t.errf("token_key", "must not be empty")
		}
		t.integer("token_start", &r.TokenStart, 0, math.MaxInt64/2)
	} else {
		for _, k := range []string{"token_node", "token_key", "token_start"} {
			if t.has(k) {
				t.errf(k, "only incr tokens use %s; tokens is %q (valid with tokens = \"incr\")", k, cfg.Work.Tokens)
			}
		}
	}
	t.dur("service_time", &r.ServiceTime, nonNegative)
	cfg.Resource = r
}

// parseTokens reads resource.tokens: a token source, or the name alg's
// store gives its tokens ("zxid" for ZooKeeper's czxid), which is the
// store's revision of the lock key.
func parseTokens(s string, alg client.Algorithm) (client.TokenSource, error) {
	if s != "" && s == alg.TokenName() {
		return client.RevisionToken, nil
	}
	src, err := client.ParseTokenSource(s)
	if err == nil {
		return src, nil
	}
	for _, name := range client.Algorithms() {
		if a, _ := client.ParseAlgorithm(name); a.TokenName() == s && s != "" {
			return 0, fmt.Errorf("%s tokens come from %v's store; this lock's algorithm is %v", s, a, alg)
		}
	}
	if n := alg.TokenName(); n != "" && n != "revision" {
		return 0, fmt.Errorf("%v (or %q, the revision of this lock's store)", err, n)
	}
	return 0, err
}

// names decodes count or names, with prefix for the default names.
func (d *decoder) names(t *table, prefix string, def, least int) (names []string, origins []string) {
	n := def
	switch {
	case t.has("names") && t.has("count"):
		t.errf("names", "give count or names, not both")
		return nil, nil
	case t.has("names"):
		var list []string
		if !t.strings("names", &list) {
			return nil, nil
		}
		if len(list) > maxProcesses || len(list) < least {
			t.errf("names", "need between %d and %d names, got %d", least, maxProcesses, len(list))
			return nil, nil
		}
		for i, s := range list {
			path := keypath.Index(t.key("names"), i)
			if err := checkName(s); err != nil {
				d.errAt(path, "%v", err)
				continue
			}
			names = append(names, s)
			origins = append(origins, path)
		}
		return names, origins
	case t.has("count"):
		if !t.count("count", &n, int64(least), maxProcesses) {
			return nil, nil
		}
	}
	for i := 1; i <= n; i++ {
		names = append(names, fmt.Sprintf("%s%d", prefix, i))
		origins = append(origins, t.path)
	}
	return names, origins
}

// overrides decodes [[<t>.<k>]] entries, which name one of names each; it
// returns the entry for each name (nil if none).
func (d *decoder) overrides(t *table, k string, valid []string, names []string, namesOK bool, what string) []*table {
	out := make([]*table, len(names))
	for _, o := range t.tables(k, valid) {
		var name string
		if !o.require("name", "the "+what+" this entry applies to") || !o.str("name", &name) {
			continue
		}
		i := slices.Index(names, name)
		if i < 0 && !namesOK {
			continue // the names have an error of their own
		}
		if i < 0 {
			o.errf("name", "no %s is called %q (%ss: %s)", what, name, what, field.Names(names))
			continue
		}
		if out[i] != nil {
			line, _ := d.pos.Nearest(out[i].path)
			o.errf("name", "%s already has an entry (%s, line %d)", name, out[i].path, line)
			continue
		}
		out[i] = o
	}
	return out
}

// nodeFieldNames are the Config fields of a node's keys, for the origins.
var nodeFieldNames = map[string]string{
	"persistence": "Redis.Persistence", "fsync_every": "Redis.FsyncEvery", "service_time": "Redis.ServiceTime",
	"replication_delay": "Redis.ReplicationDelay", "min_replicas_to_write": "Redis.MinReplicasToWrite",
	"min_replicas_max_lag": "Redis.MinReplicasMaxLag", "replica_of": "Redis.ReplicaOf", "clock": "Clock",
}

// nodes decodes the nodes, and each node's restart delay, the file's
// default for a crash's for.
func (d *decoder) nodes(t *table, alg client.Algorithm) ([]model.NodeConfig, []time.Duration) {
	before := len(d.errs)
	names, origins := d.names(t, "n", 5, 0)
	namesOK := len(d.errs) == before
	base := model.NodeConfig{Redis: defaultRedis}
	var baseDelay time.Duration
	d.nodeFields(t, &base, &baseDelay)
	over := d.overrides(t, "node", nodeOverrideKeys, names, namesOK, "node")
	nodes := make([]model.NodeConfig, len(names))
	delays := make([]time.Duration, len(names))
	for i, name := range names {
		n := base
		n.Name = name
		n.Clock = cloneSpec(base.Clock)
		delays[i] = baseDelay
		o := over[i]
		d.processOrigins(fmt.Sprintf("Nodes[%d]", i), origins[i], name, t, o, nodeFieldNames, "")
		explicit := false
		if o != nil {
			d.nodeFields(o, &n, &delays[i])
			if o.has("replica_of") {
				explicit = true
				o.str("replica_of", &n.Redis.ReplicaOf)
			}
		}
		if alg.Sentinel() && i > 0 && !explicit {
			n.Redis.ReplicaOf = names[0]
		}
		nodes[i] = n
	}
	return nodes, delays
}

// processOrigins records where the fields of the node or client at Go path
// key come from: its name from names (origin, written out unless it equals
// the shared table's path), its other fields from its own entry o or the
// shared table t (fields maps file keys to Go fields), and its rate spread
// from the clock table that sets it. A client's start also derives from
// the shared table's also key.
func (d *decoder) processOrigins(key, nameOrigin, name string, t, o *table, fields map[string]string, also string) {
	d.origins[key] = origin{path: nameOrigin, who: name}
	d.origins[key+".Name"] = origin{path: nameOrigin, explicit: nameOrigin != t.path}
	for k, f := range fields {
		a := ""
		if k == "start" {
			a = also
		}
		d.origins[key+"."+f] = keyOrigin(t, o, k, a, name)
	}
	spread := keyOrigin(t, o, "clock", "", name)
	spread.path += ".rate_spread_ppm"
	d.origins[key+".RateSpread"] = spread
}

// keyOrigin is where the per-process key k of the process called name is
// set: in its own entry o, else in the shared table t (or at t's key also,
// which k derives from), else, as nowhere sets it, where its own entry or
// the shared table would set it.
func keyOrigin(t, o *table, k, also, name string) origin {
	switch {
	case o != nil && o.has(k):
		return origin{path: o.key(k)}
	case t.has(k):
		return origin{path: t.key(k), who: name}
	case also != "" && t.has(also):
		return origin{path: t.key(also), who: name}
	case o != nil:
		return origin{path: o.key(k)}
	}
	return origin{path: t.key(k), who: name}
}

// nodeFields applies the node keys of t (the [nodes] table or one
// [[nodes.node]] entry) to n.
func (d *decoder) nodeFields(t *table, n *model.NodeConfig, restartDelay *time.Duration) {
	enum(t, "persistence", &n.Redis.Persistence, redis.ParsePersistence)
	// Zero would make Redis use its default silently: not what "0s" says.
	t.dur("fsync_every", &n.Redis.FsyncEvery, period)
	t.dur("service_time", &n.Redis.ServiceTime, positive)
	t.dur("replication_delay", &n.Redis.ReplicationDelay, nonNegative)
	t.count("min_replicas_to_write", &n.Redis.MinReplicasToWrite, 0, maxProcesses)
	t.dur("min_replicas_max_lag", &n.Redis.MinReplicasMaxLag, positive)
	t.dur("restart_delay", restartDelay, nonNegative)
	if t.has("clock") {
		d.clock(t.sub("clock", clockKeys), &n.Clock, &n.RateSpread)
	}
}

// clientFieldNames are the Config fields of a client's keys, for the
// origins.
var clientFieldNames = map[string]string{"start": "StartIn", "clock": "Clock", "pauses": "Pauses"}

func (d *decoder) clients(t *table) []model.ClientConfig {
	before := len(d.errs)
	names, origins := d.names(t, "c", 3, 1)
	namesOK := len(d.errs) == before
	base := model.ClientConfig{}
	var start, stagger time.Duration
	t.dur("start", &start, nonNegative)
	t.dur("stagger", &stagger, nonNegative)
	if stagger > 0 && len(names) > 1 && time.Duration(len(names)-1) > (clocks.Horizon-start)/stagger {
		t.errf("stagger", "the last client would start after %v", clocks.Horizon)
		stagger = 0
	}
	if t.has("clock") {
		d.clock(t.sub("clock", clockKeys), &base.Clock, &base.RateSpread)
	}
	if t.has("pauses") {
		d.pauses(t.sub("pauses", pausesKeys), &base.Pauses)
	}
	over := d.overrides(t, "client", clientOverrideKey, names, namesOK, "client")
	clients := make([]model.ClientConfig, len(names))
	for i, name := range names {
		c := base
		c.Name = name
		c.Clock = cloneSpec(base.Clock)
		c.StartIn = start + time.Duration(i)*stagger
		o := over[i]
		// A client's start is the shared start plus its stagger.
		d.processOrigins(fmt.Sprintf("Clients[%d]", i), origins[i], name, t, o, clientFieldNames, "stagger")
		if o != nil {
			o.dur("start", &c.StartIn, nonNegative)
			if o.has("clock") {
				d.clock(o.sub("clock", clockKeys), &c.Clock, &c.RateSpread)
			}
			if o.has("pauses") {
				d.pauses(o.sub("pauses", pausesKeys), &c.Pauses)
			}
		}
		clients[i] = c
	}
	return clients
}

// pauses applies a pauses table to p: every replaces every, length
// replaces the whole length distribution.
func (d *decoder) pauses(t *table, p *model.PauseConfig) {
	fromLog := t.m["every"] == FromLog
	if !fromLog {
		t.dur("every", &p.Every, periodOrZero)
		p.Arrivals = nil
	}
	before := len(d.errs)
	if t.has("length") {
		if l, ok := d.latency(t.key("length"), t.m["length"]); ok {
			p.Length = l
		}
	}
	if fromLog && len(d.errs) == before {
		d.logArrivals(t, t.key("length"), p)
	}
	if p.Every > 0 && p.Length.Kind == 0 && !t.bad {
		t.errf("length", `required when every is set: a latency table, like { kind = "exponential", mean = "200ms" }`)
	}
}

// cloneSpec copies s so that a per-process change cannot reach the shared
// lists; nil stays nil.
func cloneSpec(s clocks.Spec) clocks.Spec {
	s.Steps = clone(s.Steps)
	s.RateChanges = clone(s.RateChanges)
	s.Slews = clone(s.Slews)
	return s
}

func clone[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// clock applies a clock table to spec (and spread, if the process has one).
// Lists replace lists. The clock's rules are clocks.Spec.Validate's and the
// model's, which report at these keys through the origins.
func (d *decoder) clock(t *table, spec *clocks.Spec, spread *float64) {
	if t.has("chrony") {
		d.chrony(t, spec, spread)
	}
	t.dur("offset", &spec.Offset, anySign)
	t.float("rate_ppm", &spec.RatePPM)
	if spread != nil {
		t.float("rate_spread_ppm", spread)
	}
	if t.has("steps") {
		spec.Steps = nil
		for _, e := range t.tables("steps", []string{"at", "by"}) {
			var s clocks.Step
			e.require("at", `when, like "10s"`)
			e.require("by", `how far the wall clock jumps, like "+2s" or "-500ms"`)
			e.dur("at", &s.At, nonNegative)
			e.dur("by", &s.By, anySign)
			spec.Steps = append(spec.Steps, s)
		}
	}
	if t.has("rate_changes") {
		spec.RateChanges = nil
		for _, e := range t.tables("rate_changes", []string{"at", "rate_ppm"}) {
			var r clocks.RateChange
			e.require("at", `when, like "10s"`)
			e.require("rate_ppm", "the new rate error in ppm")
			e.dur("at", &r.At, nonNegative)
			e.float("rate_ppm", &r.RatePPM)
			spec.RateChanges = append(spec.RateChanges, r)
		}
	}
	if t.has("slews") {
		spec.Slews = nil
		for _, e := range t.tables("slews", []string{"at", "by", "max_ppm"}) {
			var s clocks.Slew
			e.require("at", `when, like "10s"`)
			e.require("by", `how far to slew the wall clock, like "+2s" or "-500ms"`)
			e.dur("at", &s.At, nonNegative)
			e.dur("by", &s.By, anySign)
			e.float("max_ppm", &s.MaxPPM)
			spec.Slews = append(spec.Slews, s)
		}
	}
}

func (d *decoder) store(t *table) model.StoreConfig {
	var s model.StoreConfig
	t.dur("service_time", &s.ServiceTime, nonNegative)
	t.dur("lease_check_every", &s.LeaseCheckEvery, periodOrZero)
	if t.has("clock") {
		d.clock(t.sub("clock", storeClockKeys), &s.Clock, nil)
	}
	return s
}

func (d *decoder) sentinel(t *table) model.SentinelConfig {
	s := model.SentinelConfig{DownAfter: 30 * time.Second, PingEvery: time.Second}
	t.dur("down_after", &s.DownAfter, positive)
	t.dur("ping_every", &s.PingEvery, period)
	return s
}

func (d *decoder) network(t *table) model.NetworkConfig {
	n := model.NetworkConfig{Latency: defaultLatency}
	if t.has("latency") {
		if l, ok := d.latency(t.key("latency"), t.m["latency"]); ok {
			n.Latency = l
		}
	}
	t.float("loss", &n.Loss)
	enum(t, "partition_mode", &n.PartitionMode, network.ParsePartitionMode)
	t.dur("retransmit_limit", &n.RetransmitLimit, positive)
	for i, lt := range t.tables("link", linkKeys) {
		// An unset latency or loss keeps following the network's.
		var l model.LinkConfig
		lt.require("from", "the sending endpoint's name")
		lt.require("to", "the receiving endpoint's name")
		lt.name("from", &l.From)
		lt.name("to", &l.To)
		if !lt.has("latency") && !lt.has("loss") && !lt.bad {
			d.errAt(lt.path, "a link sets latency, loss or both")
		}
		if lt.has("latency") {
			if lat, ok := d.latency(lt.key("latency"), lt.m["latency"]); ok {
				l.Latency = lat
			}
		}
		var loss float64
		if lt.float("loss", &loss) {
			l.Loss = &loss
		}
		d.origins[fmt.Sprintf("Network.Links[%d]", i)] = origin{path: lt.path}
		n.Links = append(n.Links, l)
	}
	return n
}

// latencyUses lists the keys each latency kind takes, and needs.
var latencyUses = map[network.LatencyKind]struct{ takes, needs []string }{
	network.LatencyConstant:    {[]string{"value"}, []string{"value"}},
	network.LatencyUniform:     {[]string{"min", "max"}, []string{"min", "max"}},
	network.LatencyExponential: {[]string{"mean", "min"}, []string{"mean"}},
	network.LatencyLognormal:   {append([]string{"median", "sigma"}, quantileKeys...), nil}, // see lognormal
	network.LatencyEmpirical:   {empiricalKeys, []string{"file", "format"}},
}

// quantileKeys are the quantiles a lognormal may be given by instead of
// its median and sigma, with their levels.
var (
	quantileKeys   = []string{"p50", "p90", "p99", "p999", "p9999"}
	quantileLevels = []float64{0.5, 0.9, 0.99, 0.999, 0.9999}
)

// durOrDist decodes key as a fixed duration, or as a latency table whose
// draws vary; *fixed then gets the table's mean.
func (d *decoder) durOrDist(t *table, key string, fixed *time.Duration, dist *network.Latency) {
	if _, isTable := t.m[key].(map[string]any); !isTable {
		t.dur(key, fixed, nonNegative)
		return
	}
	if l, ok := d.latency(t.key(key), t.m[key]); ok {
		*dist, *fixed = l, l.Expected()
	}
}

// latency decodes a latency table at path.
func (d *decoder) latency(path string, v any) (network.Latency, bool) {
	before := len(d.errs)
	t := d.table(path, v, latencyKeys)
	var l network.Latency
	if !t.require("kind", "one of constant, uniform, exponential, lognormal, empirical") || !enum(t, "kind", &l.Kind, network.ParseLatencyKind) {
		return l, false
	}
	uses := latencyUses[l.Kind]
	for _, k := range latencyKeys[1:] {
		if t.has(k) && !slices.Contains(uses.takes, k) {
			t.errf(k, "%s %v latency does not take %s (%v takes: %s)", article(l.Kind.String()), l.Kind, k, l.Kind, strings.Join(uses.takes, ", "))
		}
	}
	for _, k := range uses.needs {
		t.require(k, fmt.Sprintf("%s %v latency needs %s", article(l.Kind.String()), l.Kind, strings.Join(uses.needs, " and ")))
	}
	t.dur("value", &l.Value, nonNegative)
	t.dur("min", &l.Min, nonNegative)
	t.dur("max", &l.Max, nonNegative)
	t.dur("mean", &l.Mean, positive)
	t.dur("median", &l.Median, positive)
	t.float("sigma", &l.Sigma) // its sign is network.Latency's rule
	switch l.Kind {
	case network.LatencyLognormal:
		d.lognormal(t, &l)
	case network.LatencyEmpirical:
		if len(d.errs) == before {
			d.empirical(t, &l)
		}
	}
	return l, len(d.errs) == before
}

// article is "a" or "an" before a latency kind's name: "an" before the
// two that start with a vowel sound (exponential, empirical).
func article(word string) string {
	if strings.HasPrefix(word, "e") {
		return "an"
	}
	return "a"
}

// lognormal checks a lognormal table's two forms, median and sigma or two
// quantiles, and fits the second: after loading it is an ordinary
// lognormal, so nothing downstream knows which form the file used.
func (d *decoder) lognormal(t *table, l *network.Latency) {
	var given []int // indexes into quantileKeys
	for i, k := range quantileKeys {
		if t.has(k) {
			given = append(given, i)
		}
	}
	const forms = `give median and sigma, or two quantiles of p50, p90, p99, p999, p9999 (like p50 = "30ms", p999 = "800ms")`
	switch {
	case len(given) == 0:
		for _, k := range []string{"median", "sigma"} {
			t.require(k, "a lognormal latency needs median and sigma, or two quantiles of p50, p90, p99, p999, p9999")
		}
		return
	case t.has("median") || t.has("sigma"):
		k := "median"
		if !t.has(k) {
			k = "sigma"
		}
		t.errf(k, "a lognormal given by quantiles does not take %s: %s", k, forms)
		return
	case len(given) != 2:
		t.errf(quantileKeys[given[0]], "a lognormal given by quantiles needs exactly two of them, got %d: %s", len(given), forms)
		return
	}
	var q [2]network.Quantile
	for j, i := range given {
		q[j].P = quantileLevels[i]
		if !t.dur(quantileKeys[i], &q[j].At, positive) {
			return
		}
	}
	lo, hi := quantileKeys[given[0]], quantileKeys[given[1]]
	if q[1].At <= q[0].At {
		t.errf(hi, "%s (%v) must be larger than %s (%v): a higher quantile is never below a lower one", hi, q[1].At, lo, q[0].At)
		return
	}
	fit, err := network.LognormalFromQuantiles(q[0], q[1])
	if err != nil {
		t.errf(hi, "%v", err)
		return
	}
	*l = fit
}

// faultKeys are the keys a [[faults]] table can hold: at, kind, the
// spreads every kind may take (the model checks which may) and
// model.Fault's other fields in snake case.
var faultKeys = append([]string{"at", "kind", "at_spread", "for_spread"}, snakes(model.FaultFields())...)

// faultCommonKeys is how many of faultKeys are no kind's own.
const faultCommonKeys = 4

// faultUses is the keys kind takes besides at and kind, and those it
// needs: the model's (FaultKind.Fields), in snake case.
func faultUses(kind model.FaultKind) (takes, needs []string) {
	t, n := kind.Fields()
	return snakes(t), snakes(n)
}

func snakes(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = snake(n)
	}
	return out
}

// faultNeeds says what a needed key is: the loader's one table a new fault
// kind can need a line in (when it needs a field no kind needed before; a
// test fails until it has one).
var faultNeeds = map[string]string{
	"target":    "the process or endpoint it hits",
	"to":        "the receiving endpoint",
	"for":       `how long, like "2s"`,
	"by":        `how much, like "+2s" or "-500ms"`,
	"ppm":       "the new clock rate error in ppm",
	"partition": "one of isolate, majority-minority, bridge, ring, groups",
	"prob":      "the loss probability in [0, 1)",
}

func (d *decoder) fault(t *table) model.Fault {
	var f model.Fault
	if t.require("at", `the true time it happens, like "10s"`) {
		t.dur("at", &f.At, nonNegative)
	}
	if !t.require("kind", "one of "+strings.Join(model.FaultKinds(), ", ")) || !enum(t, "kind", &f.Kind, model.ParseFaultKind) {
		return f
	}
	takes, needs := faultUses(f.Kind)
	for _, k := range faultKeys[faultCommonKeys:] {
		if t.has(k) && !slices.Contains(takes, k) {
			list := strings.Join(takes, ", ")
			if list == "" {
				list = "nothing but at and kind"
			}
			t.errf(k, "a %v fault does not take %s (%v takes: %s)", f.Kind, k, f.Kind, list)
		}
	}
	for _, k := range needs {
		t.require(k, fmt.Sprintf("a %v fault needs %s: %s", f.Kind, k, faultNeeds[k]))
	}
	t.name("target", &f.Target)
	t.name("to", &f.To)
	t.dur("for", &f.For, nonNegative)
	t.boolean("no_restart", &f.NoRestart)
	t.boolean("on_acquire", &f.OnAcquire)
	t.dur("by", &f.By, anySign)
	t.float("ppm", &f.PPM)
	t.float("max_ppm", &f.MaxPPM) // its sign is the model's rule (faults.go's clock-slew)
	t.float("prob", &f.Prob)
	t.dur("at_spread", &f.AtSpread, nonNegative)
	t.dur("for_spread", &f.ForSpread, nonNegative)
	if f.NoRestart && t.has("for") {
		t.errf("for", "no_restart = true never restarts the node, so for means nothing: drop one of them")
	}
	if t.has("groups") {
		f.Groups, _ = d.groups(t)
	}
	// Which partitions take a target or groups is the model's rule.
	enum(t, "partition", &f.Partition, network.ParsePartitionKind)
	return f
}

func (d *decoder) groups(t *table) ([][]string, bool) {
	v := t.m["groups"]
	arr, ok := v.([]any)
	if !ok {
		t.errf("groups", `must be an array of arrays of names, like [["n1", "n2"], ["n3"]], got %s`, tomldoc.Describe(v))
		return nil, false
	}
	before := len(d.errs)
	groups := make([][]string, 0, len(arr))
	for i, g := range arr {
		var names []string
		path := keypath.Index(t.key("groups"), i)
		if !d.strings(path, g, &names) {
			continue
		}
		if len(names) == 0 {
			d.errAt(path, "a group must not be empty")
			continue
		}
		for j, n := range names {
			if err := checkName(n); err != nil {
				d.errAt(keypath.Index(path, j), "%v", err)
			}
		}
		groups = append(groups, names)
	}
	return groups, len(d.errs) == before
}
