package model

import (
	"github.com/redlocksim/redlocksim/model/check"
	"github.com/redlocksim/redlocksim/model/resource"
)

// stopAtWindow, deferred by a budgeted run, turns the resource's panic with
// a *resource.WindowError (a write based on a version older than the
// versions it keeps), or the online judge's with a *check.WindowError (a
// drop of an element older than the accepted writes it keeps), into the
// run's error, as a budget overrun is one:
// the run stopped at that write, and has no result. Any other panic is a
// bug and goes on.
func stopAtWindow(r *Result, err *error) {
	v := recover()
	if v == nil {
		return
	}
	switch we := v.(type) {
	case *resource.WindowError:
		*r, *err = Result{}, we
	case *check.WindowError: // the online judge's window of accepted writes
		*r, *err = Result{}, we
	default:
		panic(v)
	}
}
