package proc

import (
	"os"
	"os/signal"
	"syscall"
)

// CloseOnInterrupt closes g when the program gets SIGINT or SIGTERM, then
// calls then with the signal (a command exits there). The returned stop
// undoes it; call it once the group is closed the ordinary way.
func (g *Group) CloseOnInterrupt(then func(os.Signal)) (stop func()) {
	ch := make(chan os.Signal, 1)
	quit := make(chan struct{})
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			_ = g.Close()
			then(s)
		case <-quit:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(quit)
	}
}
