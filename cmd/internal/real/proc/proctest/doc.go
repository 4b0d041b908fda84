// Package proctest holds the one rule every test of a real component
// follows: when the component is missing, the test skips with a message
// naming its Debian package on a developer's machine, and fails under
// CI=true, where .ci/run has installed it and its absence is a broken
// install, not a reason to pass.
package proctest
