package resource

import (
	"github.com/redlocksim/redlocksim/model/proto"
	"github.com/redlocksim/redlocksim/network"
)

// request is a message waiting for service.
type request struct {
	from network.Endpoint
	m    proto.Msg
}

// fifo is a ring buffer of requests; it reuses its storage, so a steady
// stream of requests allocates nothing once it has grown to the peak.
type fifo struct {
	buf  []request
	head int
	n    int
}

func (q *fifo) len() int { return q.n }

func (q *fifo) push(r request) {
	if q.n == len(q.buf) {
		grown := make([]request, max(4, 2*len(q.buf)))
		for i := range q.n {
			grown[i] = q.buf[(q.head+i)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = r
	q.n++
}

func (q *fifo) pop() request {
	if q.n == 0 {
		panic("resource: broken invariant: pop from an empty queue")
	}
	r := q.buf[q.head]
	q.buf[q.head] = request{} // drop the key string
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return r
}
