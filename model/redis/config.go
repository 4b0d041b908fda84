package redis

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redlocksim/redlocksim/model/internal/names"
	"github.com/redlocksim/redlocksim/sim/field"
)

// Persistence is how a node keeps its dataset across a crash. The zero value
// is unset; Config.WithDefaults makes it None, Redis's default
// (appendonly no).
type Persistence uint8

const (
	_           Persistence = iota
	None                    // appendonly no: nothing written since start survives a crash
	AOFEverySec             // appendfsync everysec: fsync every FsyncEvery
	AOFAlways               // appendfsync always: fsync before replying
	maxPersistence
)

var persistenceNames = [...]string{"", "none", "everysec", "always"}

// String is the scenario-file spelling: "none", "everysec" or "always".
func (p Persistence) String() string {
	if p > 0 && p < maxPersistence {
		return persistenceNames[p]
	}
	return fmt.Sprintf("Persistence(%d)", p)
}

// ParsePersistence is the inverse of String.
func ParsePersistence(s string) (Persistence, error) {
	return names.Parse[Persistence](persistenceNames[:], 1, "persistence", s)
}

// MarshalText implements encoding.TextMarshaler.
func (p Persistence) MarshalText() ([]byte, error) {
	if p == 0 || p >= maxPersistence {
		return nil, fmt.Errorf("invalid persistence %d", uint8(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler (TOML decoding).
func (p *Persistence) UnmarshalText(b []byte) error {
	v, err := ParsePersistence(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Defaults filled in by WithDefaults for zero fields.
const (
	DefaultFsyncEvery        = time.Second
	DefaultServiceTime       = 100 * time.Microsecond
	DefaultMinReplicasMaxLag = 10 * time.Second // min-replicas-max-lag 10
)

// AckEvery is how often a replica acknowledges its replication offset
// without being asked (REPLCONF ACK once a second), on its monotonic clock.
const AckEvery = time.Second

// Config is one node's Redis configuration. Zero durations mean the default
// where one is named; New applies WithDefaults.
type Config struct {
	// Persistence: None (default), AOFEverySec or AOFAlways.
	Persistence Persistence `toml:"persistence"`
	// FsyncEvery is the AOFEverySec fsync period on the node's monotonic
	// clock (default 1s).
	FsyncEvery time.Duration `toml:"fsync_every"`
	// ServiceTime is the time one command occupies the node (default
	// 100µs). Commands are served one at a time in arrival order.
	ServiceTime time.Duration `toml:"service_time"`
	// ReplicaOf names the master this node replicates at its first start;
	// "" makes it a master.
	ReplicaOf string `toml:"replica_of"`
	// ReplicationDelay holds each write back this long (monotonic) before
	// the master ships it to its replicas: replication lag.
	ReplicationDelay time.Duration `toml:"replication_delay"`
	// MinReplicasToWrite refuses writes (NOREPLICAS) while fewer replicas
	// than this have acknowledged within MinReplicasMaxLag. 0 is off.
	MinReplicasToWrite int `toml:"min_replicas_to_write"`
	// MinReplicasMaxLag is min-replicas-max-lag (default 10s).
	MinReplicasMaxLag time.Duration `toml:"min_replicas_max_lag"`
}

// WithDefaults returns c with every zero field that has a default set to it.
func (c Config) WithDefaults() Config {
	c.Persistence = cmp.Or(c.Persistence, None)
	c.FsyncEvery = cmp.Or(c.FsyncEvery, DefaultFsyncEvery)
	c.ServiceTime = cmp.Or(c.ServiceTime, DefaultServiceTime)
	c.MinReplicasMaxLag = cmp.Or(c.MinReplicasMaxLag, DefaultMinReplicasMaxLag)
	return c
}

// Validate reports every problem that would make New panic, as *field.Errors
// naming the fields in Go terms. Zero values that WithDefaults fills are valid.
func (c Config) Validate() error {
	var errs []error
	bad := func(name, format string, a ...any) { errs = append(errs, field.Errorf(field.Of(name), format, a...)) }
	if c.Persistence >= maxPersistence {
		bad("Persistence", "invalid value %d (valid: %s)", uint8(c.Persistence), strings.Join(persistenceNames[1:], ", "))
	}
	if c.FsyncEvery < 0 {
		bad("FsyncEvery", "must be positive, got %v", c.FsyncEvery)
	}
	if c.ServiceTime < 0 {
		bad("ServiceTime", "must be positive, got %v", c.ServiceTime)
	}
	if c.ReplicationDelay < 0 {
		bad("ReplicationDelay", "must not be negative, got %v", c.ReplicationDelay)
	}
	if c.MinReplicasToWrite < 0 {
		bad("MinReplicasToWrite", "must not be negative, got %d", c.MinReplicasToWrite)
	}
	if c.MinReplicasMaxLag < 0 {
		bad("MinReplicasMaxLag", "must be positive, got %v", c.MinReplicasMaxLag)
	}
	if strings.ContainsAny(c.ReplicaOf, " \t\r\n") {
		bad("ReplicaOf", "%q is not an endpoint name", c.ReplicaOf)
	}
	return errors.Join(errs...)
}
