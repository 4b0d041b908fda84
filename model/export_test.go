package model

import "time"

// MeanPending runs one world of cfg and returns the mean length of its
// event queue, sampled after every event: the queue length at which the
// world's benchmark runs the bare heap it is compared with.
func MeanPending(cfg Config, seed uint64) float64 {
	plan, err := Compile(&cfg)
	if err != nil {
		panic(err)
	}
	w := NewWorld(plan, seed, false)
	var sum, n float64
	w.k.Watch(1, func() bool {
		sum += float64(w.k.Pending())
		n++
		return true
	})
	w.Run()
	return sum / n
}

// RetainedHolds runs one fast world of cfg and returns its result with
// what it still keeps of its holds at the end: the holds the world can
// still name (live) and those the Judge keeps (judged).
func RetainedHolds(cfg Config, seed uint64) (r Result, live, judged int) {
	plan, err := Compile(&cfg)
	if err != nil {
		panic(err)
	}
	w := NewWorld(plan, seed, false)
	on := w.on // the world lets go of it at the end
	r = w.Run()
	return r, len(on.live), on.judge.Retained()
}

// FloorEvents is the lower bound checkFloor holds a run to (0: not sure).
func (p *Plan) FloorEvents() uint64 { return p.floorEvents().events }

// MarksOver takes the marks of a run of duration d, budget maxEvents, at
// the given events fired and virtual times in turn, and reports at each
// whether the run is refused there on its rate (budget.steadyOver).
func MarksOver(maxEvents uint64, d time.Duration, fired []uint64, now []time.Duration) []bool {
	b := newBudget(maxEvents)
	over := make([]bool, len(fired))
	for i := range fired {
		over[i] = b.steadyOver(fired[i], now[i], d)
	}
	return over
}
