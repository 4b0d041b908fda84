package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/redlocksim/redlocksim/model/client"
)

// What the simulated client models and a real driver does not (renewal,
// fail-fast and the libraries' historic bugs on the failover client) is
// refused, naming the key, rather than run without.
func TestRefusesWhatTheRealClientsDoNotModel(t *testing.T) {
	for _, name := range []string{"watchdog-gc-pause", "watchdog-partition", "auto-extend-abort"} {
		cfg := load(t, name).Config
		refused, _ := Refusals(&cfg)
		assert.Empty(t, refused, "%s: the raw client renews", name)
		cfg.Lock.Algorithm = client.Failover
		refused, _ = Refusals(&cfg)
		var all []string
		for _, r := range refused {
			all = append(all, r.Error())
		}
		assert.Contains(t, strings.Join(all, "\n"), `lock.renewal = "`+cfg.Lock.Renewal.String()+`": the raw-failover client does not extend locks yet`, name)
	}
	// The historic bugs and fail-fast run on redsync and the raw client,
	// and are refused on the failover client.
	for _, name := range []string{"redlock-py-drift-sign", "redlock-py-connected-quorum", "node-redlock-first-attempt-expiry"} {
		cfg := load(t, name).Config
		refused, _ := Refusals(&cfg)
		assert.Empty(t, refused, "%s: the raw client reproduces the bug", name)
		assert.Equal(t, DriverRawRedlock, ChooseDriver(cfg.Lock), name)
		cfg.Lock.Algorithm = client.Failover
		refused, _ = Refusals(&cfg)
		var all []string
		for _, r := range refused {
			all = append(all, r.Error())
		}
		assert.Contains(t, strings.Join(all, "\n"), "a library's historic bug): the raw-failover client does not reproduce", name)
	}
	cfg := load(t, "gc-pause").Config
	cfg.Lock.FailFast = true
	refused, _ := Refusals(&cfg)
	assert.Empty(t, refused, "redsync's WithFailFast")
	assert.Equal(t, DriverRedsync, ChooseDriver(cfg.Lock))
	cfg.Lock.DriftAdded = true
	assert.Equal(t, DriverRawRedlock, ChooseDriver(cfg.Lock), "a historic bug is the raw client's")
}

// A fault with a drawn time or length (at_spread, for_spread) is refused,
// naming the keys: the harness plays faults at fixed times, and playing
// the nominal ones would be another experiment than the simulator's.
func TestRefusesRandomFaultTimes(t *testing.T) {
	cfg := load(t, "gc-pause").Config
	refused, _ := Refusals(&cfg)
	assert.Empty(t, refused, "gc-pause's fixed pause runs for real")
	cfg.Faults[0].AtSpread = time.Second
	refused, _ = Refusals(&cfg)
	if assert.Len(t, refused, 1) {
		assert.Contains(t, refused[0].Error(), "with at_spread or for_spread")
		assert.Contains(t, refused[0].Error(), "pin the time and length")
	}
}
