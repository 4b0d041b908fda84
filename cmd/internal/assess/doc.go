// Package assess answers a practitioner's question about their own lock in
// one report: how likely a violation is per acquisition and per year at
// their lock rate (from the rare-event estimator), the dominant failure
// path and how to replay it, the smallest pause that breaks the lock on
// that path (a bisection, as boundary does), and what each of the
// debate's remedies does to the estimate (the what-if table's remedies,
// each estimated the same way).
package assess
