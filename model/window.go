package model

import "github.com/redlocksim/redlocksim/model/resource"

// stopAtWindow, deferred by a budgeted run, turns the resource's panic with
// a *resource.WindowError (a write based on a version older than the
// versions it keeps) into the run's error, as a budget overrun is one:
// the run stopped at that write, and has no result. Any other panic is a
// bug and goes on.
func stopAtWindow(r *Result, err *error) {
	v := recover()
	if v == nil {
		return
	}
	we, ok := v.(*resource.WindowError)
	if !ok {
		panic(v)
	}
	*r, *err = Result{}, we
}
