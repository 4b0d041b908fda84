package explore

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/redlocksim/redlocksim/model"
)

// Every fault kind the model has is in the explorer's table: drawn, with
// what it aims at, its magnitudes and its text, or refused with a reason.
// A new kind fails here until it has its entry.
func TestEveryFaultKindHasARule(t *testing.T) {
	var drawn []model.FaultKind
	for _, name := range model.FaultKinds() {
		k, err := model.ParseFaultKind(name)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := kindRules[k]
		switch {
		case !ok:
			t.Errorf("%v: no entry in kindRules: draw it (aim, fields, text) or refuse it with a reason", k)
		case r.refused != "":
			if r.aim != nil || r.fields != nil || r.text != nil {
				t.Errorf("%v: refused, yet the entry says how to draw it", k)
			}
		default:
			if r.text == nil {
				t.Errorf("%v: drawn, but has no text", k)
			}
			drawn = append(drawn, k)
		}
	}
	if !slices.Equal(sortedKinds(Kinds), sortedKinds(drawn)) {
		t.Errorf("Kinds = %v, want the table's drawn kinds %v", Kinds, drawn)
	}
	for _, k := range drawn {
		for _, f := range kindRules[k].fields {
			if kind, _, _ := strings.Cut(f.key, "."); kind != k.String() {
				t.Errorf("%v: bound key %q is not named after its kind", k, f.key)
			}
		}
	}
}

func sortedKinds(ks []model.FaultKind) []model.FaultKind {
	out := slices.Clone(ks)
	slices.Sort(out)
	return out
}

// A refused kind is refused with its reason, never skipped.
func TestRefusedKindSaysWhy(t *testing.T) {
	base := loadNamed(t, "baseline")
	for k, r := range kindRules {
		if r.refused == "" {
			continue
		}
		_, err := NewSpace(&base.Config, []string{k.String()}, 3, nil)
		if err == nil || !strings.Contains(err.Error(), r.refused) {
			t.Errorf("--faults %v: error %v, want one containing %q", k, err, r.refused)
		}
	}
}

// The kinds drawn only when named (an election, a one-way cut) are not in
// the default set, and what they draw the model accepts.
func TestNamedKindsDrawValidFaults(t *testing.T) {
	for _, c := range []struct{ base, kind string }{{"consensus-lease-pauses", "election"}, {"baseline", "cut"}} {
		sc := loadNamed(t, c.base)
		def, err := NewSpace(&sc.Config, nil, 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := model.ParseFaultKind(c.kind)
		if slices.Contains(def.Kinds, k) {
			t.Errorf("%s: the default kinds %v include %v, drawn only when named", c.base, def.Kinds, k)
		}
		sp, err := NewSpace(&sc.Config, []string{c.kind}, 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		sp.bounds["at"] = Bound{0, float64(sc.Config.Duration) / 2}
		for i := range 40 {
			s := sp.Draw(rand.New(rand.NewPCG(1, uint64(i))))
			cfg := sc.Config
			cfg.Faults = s.Faults(cfg.Faults, cfg.Network.Loss)
			if _, err := model.Compile(&cfg); err != nil {
				t.Fatalf("%s: drawn %v is refused by the model: %v", c.base, s, err)
			}
			if got := s.String(); !strings.Contains(got, c.kind) {
				t.Errorf("%s: schedule %q does not say %s", c.base, got, c.kind)
			}
		}
	}
	base := loadNamed(t, "baseline")
	if _, err := NewSpace(&base.Config, []string{"election"}, 3, nil); err == nil || !strings.Contains(err.Error(), "no consensus store") {
		t.Errorf("--faults election on redlock: error %v, want one saying there is no consensus store", err)
	}
}

// With a lock on the consensus store, a drawn isolate cuts its target off
// from the store (or the store from the clients): without a group it would
// split the Redis nodes, which hold nothing there, and the model refuses
// it.
func TestStorePartitionsCutTheStore(t *testing.T) {
	for _, base := range []string{"consensus-lease-pauses", "zookeeper-session-pause", "k8s-leader-pause", "dynamodb-fast-waiter", "consul-lock-delay"} {
		sc := loadNamed(t, base)
		sp, err := NewSpace(&sc.Config, []string{"partition"}, 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		sp.bounds["at"], sp.bounds["partition.for"] = Bound{0, float64(sc.Config.Duration) / 3}, Bound{0, float64(sc.Config.Duration) / 3}
		for i := range 20 {
			s := sp.Draw(rand.New(rand.NewPCG(1, uint64(i))))
			for _, st := range s {
				if len(st.Groups) != 1 || !slices.Contains(st.Groups[0], st.Target) || !slices.Contains(st.Groups[0], "store") && st.Target != "resource" {
					t.Errorf("%s: drawn %v has groups %q; want one with %s and the store", base, s, st.Groups, st.Target)
				}
			}
			cfg := sc.Config
			cfg.Faults = s.Faults(cfg.Faults, cfg.Network.Loss)
			if _, err := model.Compile(&cfg); err != nil {
				t.Fatalf("%s: drawn %v is refused by the model: %v", base, s, err)
			}
		}
	}
}
