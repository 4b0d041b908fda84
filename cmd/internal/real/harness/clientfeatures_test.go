package harness

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redlocksim/redlocksim/model/client"
)

// What the simulated client models and the real drivers do not (renewal
// on the failover client, fail-fast, the libraries' historic bugs) is
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
	for name, want := range map[string]string{
		"redlock-py-drift-sign":             "a library's historic bug",
		"redlock-py-connected-quorum":       "a library's historic bug",
		"node-redlock-first-attempt-expiry": "a library's historic bug",
	} {
		cfg := load(t, name).Config
		refused, _ := Refusals(&cfg)
		var all []string
		for _, r := range refused {
			all = append(all, r.Error())
		}
		assert.Contains(t, strings.Join(all, "\n"), want, name)
	}
	cfg := load(t, "gc-pause").Config
	cfg.Lock.FailFast = true
	refused, _ := Refusals(&cfg)
	if assert.Len(t, refused, 1) {
		assert.Contains(t, refused[0].Error(), "lock.fail_fast")
	}
}
