package story

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redlocksim/redlocksim/sim"
)

// Every fact goes to a record and back unchanged: its fields keyed by
// their tags, in the struct's order, each key once; and the record reads
// as the fact's own sentence.
func TestFactsRoundTripThroughRecords(t *testing.T) {
	kinds := map[string]bool{}
	for _, f := range facts {
		typ := reflect.TypeOf(f)
		require.False(t, kinds[f.Kind()], "two facts of kind %q", f.Kind())
		kinds[f.Kind()] = true
		full := reflect.New(typ).Elem()
		keys := map[string]bool{}
		var want []string
		for i := range typ.NumField() {
			key := typ.Field(i).Tag.Get("story")
			require.NotEmpty(t, key, "%s.%s has no story tag", typ.Name(), typ.Field(i).Name)
			require.False(t, keys[key], "%s names key %q twice", typ.Name(), key)
			keys[key] = true
			want = append(want, key)
			full.Field(i).SetString(fmt.Sprintf("v%d", i))
		}
		fact := full.Interface().(Fact)
		fields := Fields(fact)
		var got []string
		for _, fl := range fields {
			got = append(got, fl.Key)
		}
		assert.Equal(t, want, got, "%s's keys in order", typ.Name())
		back, ok := Decode(sim.Record{Kind: fact.Kind(), Fields: fields})
		require.True(t, ok, typ.Name())
		assert.Equal(t, fact, back, typ.Name())
		assert.Equal(t, fact.Sentence(), Sentence(sim.Record{Kind: fact.Kind(), Fields: fields}), typ.Name())
		assert.True(t, Told(fact.Kind()))
	}
	// An empty field is a key the record does not carry.
	assert.Equal(t, []sim.Field{{Key: "lease", Value: "7"}}, Fields(ExpireLease{Lease: "7"}))
	assert.Equal(t, "expires lease 7", Sentence(sim.Record{Kind: LeaseExpired, Fields: Fields(ExpireLease{Lease: "7"})}))
	_, ok := Decode(sim.Record{Kind: "something-new"})
	assert.False(t, ok)
}
