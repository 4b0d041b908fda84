// Command redlocksim runs lock worlds: one scenario (run), the built-in
// library (list), many configurations (sweep, merge) and their figures
// (plot). It is one more client of the packages; it holds no simulation
// logic.
package main
