package sim

import "reflect"

// A Fact is a record as a typed value: a struct whose fields are strings,
// each tagged `story:"key"` with the key the record carries it under, in
// the order the record carries them. The struct is the one place a kind's
// keys are named, so an emitter and a reader cannot spell a key
// differently. model/story keeps the registry of every kind's fact and
// decodes records back into them; the type lives here so that packages
// below the model (network) can emit facts too.
type Fact interface {
	Kind() string
	Sentence() string
}

// FactFields is f as a record's fields: its non-empty fields, keyed by
// their tags, in the struct's order. It is only called on narrated runs,
// so the reflection costs a fast run nothing.
func FactFields(f Fact) []Field {
	v := reflect.ValueOf(f)
	t := v.Type()
	var out []Field
	for i := range t.NumField() {
		if s := v.Field(i).String(); s != "" {
			out = append(out, Field{Key: t.Field(i).Tag.Get("story"), Value: s})
		}
	}
	return out
}
