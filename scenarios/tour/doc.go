// Package tour reads the lab's guided tours: a TOML file of steps, each
// naming a scenario, its overrides, a seed, a B side, a cursor time and a
// text, and optionally a question whose answer the lab shows only after a
// click (predict, then reveal).
//
// A tour lives beside the scenarios it tours: the library's tours are
// embedded here (library/*.toml; the first, the debate, is the README's
// five-minute lecture), and a teacher's tours are the *.tour.toml files
// of the lab's --dir. A tour is checked whole when it is read: every key
// (unknown ones with the valid names), every scenario (with the valid
// names), every override (by the scenario loader, whose message it
// carries), every cursor (within the scenario's run). Each problem is a
// *scenarios.Error naming the file, the line and the key, as the
// scenario loader's are.
package tour
