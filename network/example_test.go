package network_test

import (
	"fmt"
	"time"

	"github.com/redlocksim/redlocksim/network"
	"github.com/redlocksim/redlocksim/sim"
)

func Example() {
	k := sim.New(1)
	var n *network.Net[string]
	n = network.New(k, func(from, to network.Endpoint, m string) {
		fmt.Printf("%v %s->%s %s\n", k.Now(), n.Name(from), n.Name(to), m)
	})
	c1, r1, r2 := n.AddEndpoint("c1"), n.AddEndpoint("r1"), n.AddEndpoint("r2")
	// A connection given up and reset: cut links drop (the default, hold,
	// would deliver the two messages to r1 after a heal).
	n.SetPartitionMode(network.PartitionDrop, network.DefaultRetransmitLimit)
	n.SetDefaultLatency(network.Constant(time.Millisecond))
	n.SetLatency(c1, r2, network.Constant(3*time.Millisecond))

	n.Send(c1, r2, "SET lock")
	n.Send(c1, r1, "SET lock") // dropped: still in flight when the partition starts
	n.Apply(network.Isolate(n.Endpoints(), r1))
	n.Send(c1, r1, "GET lock") // dropped: r1 is cut off
	k.Run()
	fmt.Printf("%+v\n", n.Stats())
	// Output:
	// 3ms c1->r2 SET lock
	// {Sent:3 Delivered:1 DroppedLoss:0 DroppedPartition:2 DroppedDown:0}
}

func ExampleMajoritiesRing() {
	nodes := []network.Endpoint{0, 1, 2, 3, 4}
	fmt.Println(network.MajoritiesRing(nodes))
	// Output:
	// 0<-2,3 1<-3,4 2<-0,4 3<-0,1 4<-1,2
}
