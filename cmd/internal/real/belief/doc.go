// Package belief is a real lock client's belief that it holds a lock:
// the part of a hold that etcd's and ZooKeeper's lock clients keep alike.
// The belief ends once, whoever ends it first (the client's own
// reckoning, the server, or the release), and a release comes once.
package belief
