// Package fifo is a first-in, first-out queue for the model's actors.
//
// It owns one type, Queue, a ring buffer that reuses its storage: once it
// has grown to the peak number of waiting items, a steady stream of Push
// and Pop allocates nothing. Pop clears the slot it vacates, so the queue
// keeps no reference (a key string, say) to an item it gave back.
//
// Like the actors that use it, a Queue is not safe for concurrent use.
package fifo
