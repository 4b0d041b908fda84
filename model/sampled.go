package model

import "github.com/redlocksim/redlocksim/sim"

// RunSampledWithin runs one world of p within maxEvents as RunFastWithin
// does (RunTracedWithin with trace), drawing as smp says: from tilted
// distributions, accumulating the run's likelihood ratio in smp, or
// branching at smp.BranchAt (see sim.Sampling). A zero Sampling gives the
// plain run's draws. It never replays the run for its stories: the
// estimator reads counts, and replays a run it keeps with trace.
func (p *Plan) RunSampledWithin(seed uint64, smp *sim.Sampling, maxEvents uint64, trace bool) (Result, error) {
	if err := p.checkFloor(maxEvents); err != nil {
		return Result{}, err
	}
	return newWorld(p, seed, trace, nil, smp).runWithin(maxEvents)
}
