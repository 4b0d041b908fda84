package story

import (
	"reflect"

	"github.com/redlocksim/redlocksim/sim"
)

// Fact is a record as a typed value: one struct per kind (facts.go, and
// network's four in network/records.go), the one place a kind's keys are
// named (in the struct's tags, in the order the record carries them) and
// its sentence is written. The model's actors, the world and the real
// harness emit facts (Trace, Fields), and the readers of the records (the
// trace, the excerpts, the timeline, the lab) decode them (Decode), so
// that an emitter and a reader cannot name a key differently.
//
// A fact's fields are the record's text, as the record keeps it; an empty
// one is a key the record does not carry. A value that some emitter
// writes in two forms (a validity that is a duration or "until it
// unlocks") stays text, and the sentence reads it.
type Fact = sim.Fact

// factField is one field of a fact's struct: its index and its key.
type factField struct {
	index int
	key   string
}

// factTypes maps each kind to its fact's type and fields.
var factTypes = func() map[string]factType {
	m := make(map[string]factType, len(facts))
	for _, f := range facts {
		t := reflect.TypeOf(f)
		ft := factType{t: t}
		for i := range t.NumField() {
			ft.fields = append(ft.fields, factField{index: i, key: t.Field(i).Tag.Get("story")})
		}
		if _, dup := m[f.Kind()]; dup {
			panic("story: two facts of kind " + f.Kind())
		}
		m[f.Kind()] = ft
	}
	return m
}()

type factType struct {
	t      reflect.Type
	fields []factField
}

// Fields is f as a record's fields: its non-empty fields, keyed by their
// tags, in the struct's order.
func Fields(f Fact) []sim.Field { return sim.FactFields(f) }

// Decode is record r as its kind's fact, or false for a kind that has
// none. A key the fact does not name is left out of it.
func Decode(r sim.Record) (Fact, bool) {
	ft, ok := factTypes[r.Kind]
	if !ok {
		return nil, false
	}
	v := reflect.New(ft.t).Elem()
	for _, fl := range ft.fields {
		if s, ok := r.Get(fl.key); ok {
			v.Field(fl.index).SetString(s)
		}
	}
	return v.Interface().(Fact), true
}

// Tracer is where an actor narrates: proto.Env.
type Tracer interface {
	Tracing() bool
	Trace(kind string, fields ...sim.Field)
}

// Trace narrates fact f to t, if t is tracing.
func Trace(t Tracer, f Fact) {
	if t.Tracing() {
		t.Trace(f.Kind(), Fields(f)...)
	}
}

// Text is a value as a fact's field holds it: the text a record keeps
// (sim.F's), a duration as time.Duration prints it.
func Text(v any) string { return sim.F("", v).Value }

// Clock is the fact of a clock fault of kind ClockStep, ClockSlew or
// ClockRate: a step or slew by, a rate error of ppm. The world and the
// real harness narrate the three alike.
func Clock(kind, by, ppm string) Fact {
	switch kind {
	case ClockSlew:
		return SlewClock{By: by, PPM: ppm}
	case ClockRate:
		return RateClock{By: by, PPM: ppm}
	}
	return StepClock{By: by, PPM: ppm}
}

// Down is the fact of a crash, or of a power loss: restart is "never" for
// a process that stays down, restartIn when it comes back otherwise.
func Down(powerLoss bool, restart, restartIn string) Fact {
	if powerLoss {
		return LosePower{Restart: restart, RestartIn: restartIn}
	}
	return Crash{Restart: restart, RestartIn: restartIn}
}
