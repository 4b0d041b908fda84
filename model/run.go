package model

// Run compiles cfg and runs one world (see Plan.RunWithin) within the
// default budget. A caller that runs one Config many times, or has a Plan
// already (a loaded scenario's), runs the Plan: Compile once.
func Run(cfg Config, seed uint64) (Result, error) {
	p, err := Compile(&cfg)
	if err != nil {
		return Result{}, err
	}
	return p.RunWithin(seed, 0)
}

// RunFast compiles cfg and runs one world without narration (see
// Plan.RunFastWithin) within the default budget.
func RunFast(cfg Config, seed uint64) (Result, error) {
	p, err := Compile(&cfg)
	if err != nil {
		return Result{}, err
	}
	return p.RunFastWithin(seed, 0)
}

// RunTraced compiles cfg and runs one world with narration (see
// Plan.RunTracedWithin) within the default budget.
func RunTraced(cfg Config, seed uint64) (Result, error) {
	p, err := Compile(&cfg)
	if err != nil {
		return Result{}, err
	}
	return p.RunTracedWithin(seed, 0)
}

// RunWithin runs one world as Run does, within a budget of maxEvents
// events (0: DefaultMaxEvents), and with it of history
// (HistoryBytesPerEvent each): a run whose estimate exceeds it is refused,
// and one that exceeds it stopped, with a *BudgetError (see budget.go). It
// does not change a run that keeps within it. The budget is an argument of
// the run, not a field of the Config, so that a tool changes it without
// compiling the Config again.
func (p *Plan) RunWithin(seed, maxEvents uint64) (Result, error) {
	return p.runBudgeted(seed, maxEvents, false, true)
}

// RunFastWithin is RunFast within a budget, as RunWithin.
func (p *Plan) RunFastWithin(seed, maxEvents uint64) (Result, error) {
	return p.runBudgeted(seed, maxEvents, false, false)
}

// RunTracedWithin is RunTraced within a budget, as RunWithin.
func (p *Plan) RunTracedWithin(seed, maxEvents uint64) (Result, error) {
	return p.runBudgeted(seed, maxEvents, true, false)
}

// Run runs one world without narration. A run that finds a violation is
// replayed, narrated only inside the violations' windows, so that each
// violation carries its excerpt (see stories.go): the replay is exact
// (narration draws no random number and schedules no event), so its counts
// are the first run's, and it keeps no history, trace or timeline, so its
// memory does not grow with the run's length. A caller that wants those
// runs RunTraced.
func (p *Plan) Run(seed uint64) Result {
	r := p.RunFast(seed)
	if len(r.Report.Violations) == 0 {
		return r
	}
	return newStoryWorld(p, seed, r.Report.Violations).Run()
}

// RunFast runs one world without narration, ever: the sweep's way, where
// only the counts matter.
func (p *Plan) RunFast(seed uint64) Result { return NewWorld(p, seed, false).Run() }

// RunTraced runs one world with narration on: the trace, the timeline, and
// the observation log the violation excerpts are cut from.
func (p *Plan) RunTraced(seed uint64) Result { return NewWorld(p, seed, true).Run() }
