package resource

import (
	"fmt"
	"time"
)

// Mode is the resource's admission rule for writes. The zero value is
// invalid.
type Mode uint8

const (
	_             Mode = iota
	Unprotected        // accept every write
	Fencing            // reject tokens lower than the highest seen (proto.StaleToken)
	CompareAndSet      // accept only the lock value that last claimed the resource by reading (proto.NotOwner)
	maxMode
)

var modeNames = [...]string{"", "unprotected", "fencing", "compare-and-set"}

// String is the mode's name as scenario files spell it.
func (m Mode) String() string {
	if m == 0 || m >= maxMode {
		return fmt.Sprintf("Mode(%d)", m)
	}
	return modeNames[m]
}

// ParseMode is the inverse of String.
func ParseMode(s string) (Mode, error) {
	for m := Unprotected; m < maxMode; m++ {
		if modeNames[m] == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("unknown resource mode %q (want unprotected, fencing or compare-and-set)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (m Mode) MarshalText() ([]byte, error) {
	if m == 0 || m >= maxMode {
		return nil, fmt.Errorf("invalid resource mode %d", m)
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler, so that a TOML decoder
// reads a Mode from its name.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Config configures a Resource.
type Config struct {
	Mode Mode
	// FenceWritesOnly makes Fencing remember only the tokens of accepted
	// writes, as Kleppmann's figure draws it, instead of every token seen,
	// reads included. It leaves a read-modify-write open to a lost update
	// (see the package documentation); it exists to show that. Only valid
	// with Fencing.
	FenceWritesOnly bool
	// ServiceTime is how long the resource takes to serve one request, on
	// its own monotonic clock. Requests are served one at a time, in
	// arrival order. Zero serves each at once.
	ServiceTime time.Duration
}

// Validate reports the first thing wrong with c, or nil.
func (c Config) Validate() error {
	if c.Mode == 0 || c.Mode >= maxMode {
		return fmt.Errorf("resource mode %d is not one of unprotected, fencing, compare-and-set", c.Mode)
	}
	if c.FenceWritesOnly && c.Mode != Fencing {
		return fmt.Errorf("fence-writes-only needs mode fencing, not %v", c.Mode)
	}
	if c.ServiceTime < 0 {
		return fmt.Errorf("resource service time %v is negative", c.ServiceTime)
	}
	return nil
}
