package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
)

// interruptSignals are what stop a command that takes the signal context
// gracefully; tests replace them with SIGUSR1.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// signalContext is the one signal context, made by dispatch for the
// commands that set signals: it is cancelled at the first of sigs with an
// *interruptedError naming the signal as its cause, so that a command can
// exit with 128 + its number as a shell reports it. (signal.NotifyContext
// gives only the signal's name in its cause.) After the first signal the
// signals take their default action again: a second Ctrl-C kills the
// process at once, and what was finished is kept all the same (a journal
// is appended to run by run, files are written atomically, a real run's
// children die with the process through Pdeathsig).
func signalContext(sigs []os.Signal) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			cancel(&interruptedError{sig: s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
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
