package cluster

import "time"

// StepKind is what a Step did.
type StepKind int

// The steps Start and StopNode take, each with the Step fields it sets
// beside Node.
const (
	// Bootstrapping: Node, the first, bootstraps a new cluster at
	// Endpoint.
	Bootstrapping StepKind = iota + 1
	// Joining: Node joins the cluster at Endpoint, by a state transfer
	// of method SST.
	Joining
	// Reached: Node reports Status, Synced in a primary component of the
	// size it waited for, After it began to wait.
	Reached
	// Stopping: Node is being shut down.
	Stopping
)

// Step is one thing the cluster did, for the caller's progress
// (Config.Steps): its Kind and the fields that Kind names, the others
// zero. Package present says it to a person.
type Step struct {
	Kind     StepKind
	Node     string // the node's host name
	Endpoint string // the node's address:port
	SST      string // wsrep_sst_method
	Status   Status
	After    time.Duration
}

// step hands s to Config.Steps, if set.
func (c *Cluster) step(s Step) {
	if c.cfg.Steps != nil {
		c.cfg.Steps(s)
	}
}
