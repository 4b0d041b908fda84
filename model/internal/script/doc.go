// Package script runs step tests written as scripts, in the style of
// etcd-io/raft's interaction tests and cockroachdb/datadriven, with the
// standard library only.
//
// A script is a text file (by convention testdata/*.txt in the package
// under test) made of cases. Each case is one command line, a line holding
// exactly "----", and the expected output, ended by a blank line or the end
// of the file:
//
//	# Lines starting with # and blank lines between cases are comments.
//	set c1 lock v1 nx px=10s
//	----
//	0.000100 n1 sets lock=v1 ...
//
// The command line is split on spaces into a command name and arguments;
// an argument is a bare word ("nx") or key=value ("px=10s"). Run hands each
// case to a callback in file order, on the one state the test built for
// the file, and compares what it returns with the expected output; trailing
// spaces and trailing blank lines are ignored, and the output may not hold
// a blank line (it would end the case). A mismatch fails the test with the
// case's file:line, the command, got, want and the first line that differs.
//
// Rewriting: expected output is never typed by hand. Write the commands
// with an empty output block, then run the package's tests with
//
//	go test ./model/redis -run TestScripts -rewrite
//
// which replaces every output block with what the code printed (comments
// and commands are kept byte for byte). Then read the diff: a rewritten
// output is a claim about the model, to be checked against the spec before
// it is committed. The -rewrite flag is declared by this package, so every
// test binary that imports it accepts it.
//
// A callback reports bad input in a script (an unknown command, a bad
// argument) with Case.Fatalf, which names file:line; Word, Dur, LockValue
// (c1#2, as the narration prints lock values) and AtBy (2s:+4s) parse the
// common arguments and fail the same way.
//
// Walk runs a directory of scripts with one package's Commands: a map
// from command name to the function that runs it on the script's state,
// and the command that builds that state. Walk holds every script to
// opening with it, once, and fails an unknown command naming the valid
// ones, so a package's test supplies only its commands.
//
// Users: model/redis and model/client (TestScripts in script_test.go, which
// lists each package's commands). Their scripts print the actors' records
// in model/story's words, stamped with true time, so a script reads like a
// narrated run of one actor.
package script
