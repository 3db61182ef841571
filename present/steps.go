package present

import (
	"fmt"

	"github.com/hoplat/hoplat/cluster"
	"github.com/hoplat/hoplat/hosts"
)

// hostStep is the progress line of one of package hosts' steps, without
// its newline: "hosts:", the host, and what was done to it.
func hostStep(s hosts.Step) string {
	switch s.Kind {
	case hosts.NetNSAdded:
		return fmt.Sprintf("hosts: netns %s: added %s", s.Host, s.Namespace)
	case hosts.AddressSet:
		return fmt.Sprintf("hosts: netns %s: %s on %s in %s", s.Host, s.Address, s.Interface, s.Namespace)
	case hosts.StaleNetNSRemoved:
		return "hosts: removed stale netns " + s.Namespace
	case hosts.StaleTempDirRemoved:
		return "hosts: removed stale temp dir " + s.Path
	case hosts.StaleNotRemoved:
		return fmt.Sprintf("hosts: %v", s.Err)
	case hosts.SSHConnecting:
		return fmt.Sprintf("hosts: ssh %s: connecting to %s", s.Host, s.Dest)
	case hosts.SSHReady:
		return fmt.Sprintf("hosts: ssh %s: %s/%s, temp dir %s", s.Host, s.GOOS, s.GOARCH, s.Path)
	case hosts.SSHStaleRemoved:
		return fmt.Sprintf("hosts: ssh %s: removed stale %s", s.Host, s.Path)
	case hosts.BinaryShipped:
		return fmt.Sprintf("hosts: ssh %s: shipped %s to %s", s.Host, s.Local, s.Path)
	case hosts.CloseProcess:
		return fmt.Sprintf("hosts: close: stop %s on %s", s.Process, s.Host)
	case hosts.CloseNetNS:
		return "hosts: close: delete netns " + s.Namespace
	case hosts.CloseSSH:
		return "hosts: close: close ssh " + s.Host
	case hosts.CloseRemoteDir:
		return fmt.Sprintf("hosts: close: remove %s:%s", s.Host, s.Path)
	case hosts.CloseTempDir:
		return "hosts: close: remove " + s.Path
	}
	return fmt.Sprintf("hosts: step %d on %s", s.Kind, s.Host)
}

// nodeStep is the progress line of one of package cluster's steps,
// without its newline: "galera:", the node, and what it did.
func nodeStep(s cluster.Step) string {
	switch s.Kind {
	case cluster.Bootstrapping:
		return fmt.Sprintf("galera: %s: bootstrapping a new cluster at %s", s.Node, s.Endpoint)
	case cluster.Joining:
		return fmt.Sprintf("galera: %s: joining at %s (state transfer: %s)", s.Node, s.Endpoint, s.SST)
	case cluster.Reached:
		st := s.Status
		return fmt.Sprintf("galera: %s: %s, cluster size %d, %s, ready %t after %.1fs",
			s.Node, st.State, st.ClusterSize, st.ClusterStatus, st.Ready, s.After.Seconds())
	case cluster.Stopping:
		return fmt.Sprintf("galera: %s: stopping", s.Node)
	}
	return fmt.Sprintf("galera: %s: step %d", s.Node, s.Kind)
}
