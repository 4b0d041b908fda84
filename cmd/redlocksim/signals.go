package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

// interruptSignals are what stop a command that takes the signal context
// gracefully; tests replace them with SIGUSR1.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// signalGrace is how long a command that watches its signal context has,
// after the signal, to stop and keep what it finished. A command blocked
// in a call no signal interrupts (opening a FIFO that has no writer, a
// stalled filesystem) would otherwise never see the context end: after
// the grace the process ends itself, with the signal's status.
const signalGrace = 1500 * time.Millisecond

// exitStuck ends the process with a status when its command did not stop
// after a signal: os.Exit, set by main. nil in tests, which run commands
// inside the test's own process and must not end it.
var exitStuck func(status int)

// signalContext is the one signal context, made by dispatch for every
// command: it is cancelled at the first of sigs with an *interruptedError
// naming the signal as its cause, so that a command can exit with 128 +
// its number as a shell reports it. (signal.NotifyContext gives only the
// signal's name in its cause.) If the command has not returned grace
// after the signal, stuck is called with it: a command that does not
// watch the context gets a grace of 0, and ends at once, as by the
// signal's default action but with the table's status. After the first
// signal the signals take their default action again: a second Ctrl-C
// kills the process at once, and what was finished is kept all the same
// (a journal is appended to run by run, files are written atomically, a
// real run's children die with the process through Pdeathsig).
func signalContext(sigs []os.Signal, grace time.Duration, stuck func(os.Signal)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(ch, sigs...)
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(&interruptedError{sig: s})
			if stuck == nil {
				return
			}
			t := time.NewTimer(grace)
			defer t.Stop()
			select {
			case <-t.C:
				stuck(s)
			case <-done:
			}
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		signal.Stop(ch)
		once.Do(func() { close(done) })
		cancel(nil)
	}
}

// stopStuck is signalContext's stuck for command name: with exitStuck
// set, it says why on stderr and ends the process with the signal's
// status.
func stopStuck(name string, watches bool, stderr io.Writer) func(os.Signal) {
	if exitStuck == nil {
		return nil
	}
	return func(s os.Signal) {
		ie := &interruptedError{sig: s}
		if watches {
			fmt.Fprintf(stderr, "redlocksim %s: stopped by %v: it did not end within %v of the signal (a file it opened does not answer: a FIFO without a writer or reader, a stalled filesystem)\n", name, s, signalGrace)
		} else {
			fmt.Fprintf(stderr, "redlocksim %s: stopped by %v\n", name, s)
		}
		exitStuck(ie.status())
	}
}

// caughtSignal is the signal that cancelled ctx, or nil: ctx was not
// cancelled, or not by a signal (a test's cancel).
func caughtSignal(ctx context.Context) os.Signal {
	var ie *interruptedError
	if errors.As(context.Cause(ctx), &ie) {
		return ie.sig
	}
	return nil
}

// closeOnDone closes g as soon as ctx is done, so that every child of a
// real run dies at the signal, even while the run is in a step that does
// not look at ctx. The returned closeGroup closes g the ordinary way and
// returns once it is closed, whichever way that was.
func closeOnDone(ctx context.Context, g *proc.Group) (closeGroup func() error) {
	closed := make(chan error, 1)
	stop := context.AfterFunc(ctx, func() { closed <- g.Close() })
	return func() error {
		if stop() {
			return g.Close()
		}
		return <-closed
	}
}
