package harness

import (
	"context"
	"syscall"

	"github.com/redlocksim/redlocksim/cmd/internal/real/proc"
	"github.com/redlocksim/redlocksim/model"
)

// DriverStore is the name of the lease lock's client driver, which the
// store package registers.
const DriverStore = "store"

// StoreCluster is a running consensus store (etcd) for the lease lock.
type StoreCluster interface {
	// Addrs are the members' client addresses; the harness puts each
	// client's connection to each member behind a proxy link of its own
	// ("c1>store1", ...), and gives the client driver the proxied
	// addresses in ClientSpec.Nodes.
	Addrs() []string
	// Signal sends sig to every member: SIGSTOP and SIGCONT pause the
	// store as Jepsen's nemesis does.
	Signal(sig syscall.Signal) error
}

// StoreDriver is the hook the consensus lease lock plugs into: Start
// brings up the cluster (its processes in g, which the harness closes),
// and Client is the lock client the client processes run (registered as
// DriverStore). Election faults are refused until the driver handles them.
type StoreDriver struct {
	Start  func(ctx context.Context, g *proc.Group, cfg *model.Config) (StoreCluster, error)
	Client DriverFunc
}

var storeDriver *StoreDriver

// RegisterStore wires the lease lock in. Call it from an init function of
// the store package, which the command imports.
func RegisterStore(d StoreDriver) {
	storeDriver = &d
	drivers[DriverStore] = d.Client
}
