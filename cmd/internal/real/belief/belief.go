package belief

import (
	"sync"
	"sync/atomic"
)

// Belief is one hold's belief. Its watcher selects on Released to stop
// watching once the hold is given up.
type Belief struct {
	lost     chan struct{}
	released chan struct{}
	once     sync.Once
	took     atomic.Bool // a release came: the first closes released
}

// New is a belief that holds.
func New() *Belief {
	return &Belief{lost: make(chan struct{}), released: make(chan struct{})}
}

// End ends the belief: Lost closes. Ending it again does nothing.
func (b *Belief) End() { b.once.Do(func() { close(b.lost) }) }

// Lost closes when the belief ends.
func (b *Belief) Lost() <-chan struct{} { return b.lost }

// Released closes when the hold is released.
func (b *Belief) Released() <-chan struct{} { return b.released }

// Release marks the hold released and ends the belief. It reports false,
// and does nothing, when the hold was released already: the caller says
// so in its own words.
func (b *Belief) Release() bool {
	if !b.took.CompareAndSwap(false, true) {
		return false
	}
	close(b.released)
	b.End()
	return true
}
