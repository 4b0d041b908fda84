package network

import "fmt"

// The records the network adds to a narrated run, as facts (sim.Fact):
// each struct is the one place its kind's keys are named, and
// model/story decodes the records back into these types.

// CutRecord is a record of kind RecordPartition: a cut is applied. Cuts
// lists the links; the caller of Apply adds its words for what the cut is
// (its fault's mode and target, and To for a one-link cut).
type CutRecord struct {
	Cuts   string `story:"cuts"`
	Mode   string `story:"mode"`
	Target string `story:"target"`
	To     string `story:"to"`
}

// Kind implements sim.Fact.
func (CutRecord) Kind() string { return RecordPartition }

// Sentence implements sim.Fact.
func (e CutRecord) Sentence() string { return "partition: " + e.Cuts }

// HealRecord is a record of kind RecordHeal: every cut is removed.
type HealRecord struct{}

// Kind implements sim.Fact.
func (HealRecord) Kind() string { return RecordHeal }

// Sentence implements sim.Fact.
func (HealRecord) Sentence() string { return "heals: every link works again" }

// DropRecord is a record of kind RecordDrop: a message is dropped.
type DropRecord struct {
	From   string `story:"from"`
	To     string `story:"to"`
	Reason string `story:"reason"`
	Sent   string `story:"sent"`
}

// Kind implements sim.Fact.
func (DropRecord) Kind() string { return RecordDrop }

// Sentence implements sim.Fact.
func (e DropRecord) Sentence() string {
	return fmt.Sprintf("drops a message %s→%s (%s)", e.From, e.To, e.Reason)
}

// TamperRecord is a record of kind RecordTamper: one message is held,
// delivered early (Arrives is its new arrival) or dropped (Drop is
// "true") by Tamper.
type TamperRecord struct {
	From    string `story:"from"`
	To      string `story:"to"`
	Sent    string `story:"sent"`
	Arrives string `story:"arrives"`
	Drop    string `story:"drop"`
}

// Kind implements sim.Fact.
func (TamperRecord) Kind() string { return RecordTamper }

// Sentence implements sim.Fact.
func (e TamperRecord) Sentence() string {
	if e.Drop != "" {
		return fmt.Sprintf("drops the message %s→%s sent at %s (drop-message fault)", e.From, e.To, e.Sent)
	}
	return fmt.Sprintf("holds the message %s→%s sent at %s and delivers it at %s (hold-message fault)", e.From, e.To, e.Sent, e.Arrives)
}
