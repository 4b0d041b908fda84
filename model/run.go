package model

// Run compiles cfg and runs one world (see Plan.Run) within the budget
// cfg.MaxEvents sets: a run whose estimate exceeds it is refused, and one
// that exceeds it stopped, with a *BudgetError (see budget.go). RunFast
// and RunTraced keep the same budget.
func Run(cfg Config, seed uint64) (Result, error) {
	p, err := Compile(&cfg)
	if err != nil {
		return Result{}, err
	}
	return p.runBudgeted(seed, false, true)
}

// RunFast compiles cfg and runs one world without narration (see
// Plan.RunFast).
func RunFast(cfg Config, seed uint64) (Result, error) {
	p, err := Compile(&cfg)
	if err != nil {
		return Result{}, err
	}
	return p.runBudgeted(seed, false, false)
}

// RunTraced compiles cfg and runs one world with narration (see
// Plan.RunTraced).
func RunTraced(cfg Config, seed uint64) (Result, error) {
	p, err := Compile(&cfg)
	if err != nil {
		return Result{}, err
	}
	return p.runBudgeted(seed, true, false)
}

// Run runs one world. A run that finds a violation is replayed with
// narration on, so that its Result carries the trace, the timeline and each
// violation's excerpt; the replay is exact (narration draws no random
// number and schedules no event), so its counts are the first run's.
func (p *Plan) Run(seed uint64) Result {
	r := p.RunFast(seed)
	if len(r.Report.Violations) == 0 {
		return r
	}
	return p.RunTraced(seed)
}

// RunFast runs one world without narration, ever: the sweep's way, where
// only the counts matter.
func (p *Plan) RunFast(seed uint64) Result { return NewWorld(p, seed, false).Run() }

// RunTraced runs one world with narration on: the trace, the timeline, and
// the observation log the violation excerpts are cut from.
func (p *Plan) RunTraced(seed uint64) Result { return NewWorld(p, seed, true).Run() }
