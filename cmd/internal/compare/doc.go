// Package compare sets the simulator beside real runs of the same
// scenarios: compare runs's rows (Row, its JSON a contract that the
// report's reality table reads), how one scenario is run both ways and
// judged (One, with differ.Judge for the safety properties and a floor
// for availability), and the rows as a table and as CSV. The command
// (cmd/redlocksim) parses the flags, loads the scenarios and gives One the
// real runner; compare sweep's real points are here too (RunPoints).
package compare
