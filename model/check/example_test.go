package check_test

import (
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/model/check"
)

// Kleppmann's process pause: c1 holds the lock with token 33 from 1s and is
// paused until 20s; c2 holds it with token 34 from 11s to 13s and writes;
// c1's write, read before the pause, lands at 20.1s and the resource, which
// does not check fencing tokens, accepts it.
func ExampleCheck() {
	const s = time.Second
	h := check.History{
		End: 30 * s,
		Holds: []check.Hold{
			{ID: 1, Client: "c1", Start: 1 * s, End: 20 * s, Token: 33},
			{ID: 2, Client: "c2", Start: 11 * s, End: 13 * s, Token: 34},
		},
		Writes: []check.Write{
			{Client: "c2", HoldID: 2, At: 12 * s, Element: 2, Accepted: true},
			{Client: "c1", HoldID: 1, At: 20*s + 100*time.Millisecond, Element: 1, Accepted: true},
		},
		Final: []uint64{1},
	}
	r := check.Check(h)
	mutex, resource := r.Safe()
	fmt.Println("mutex safe:", mutex, "resource safe:", resource)
	for _, v := range r.Violations {
		fmt.Println(v)
	}
	// Output:
	// mutex safe: false resource safe: false
	// stale-write-accepted: c1's write of element 1 at 20.1s was accepted under hold 1, token 33, from 1s, but c2 had since acquired the lock (hold 2, token 34, from 11s)
	// lost-update: c2's write of element 2 at 12s (hold 2, token 34, from 11s) was acknowledged but is missing from the final set; c1's write of element 1 at 20.1s (hold 1, token 33, from 1s) overwrote it
	// mutex-overlap: c1 and c2 both held the lock for 2s (c1 from 1s, c2 from 11s)
}
