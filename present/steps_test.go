package present

import (
	"errors"
	"testing"
	"time"

	"github.com/hoplat/hoplat/cluster"
	"github.com/hoplat/hoplat/hosts"
)

// Every step kind has its own words: a kind added without them would say
// "step N", which no person can read.
func TestStepWords(t *testing.T) {
	for _, c := range []struct {
		s    hosts.Step
		want string
	}{
		{hosts.Step{Kind: hosts.NetNSAdded, Host: "client", Namespace: "hoplat-7-client"}, "hosts: netns client: added hoplat-7-client"},
		{hosts.Step{Kind: hosts.AddressSet, Host: "client", Namespace: "hoplat-7-client", Interface: "veth0", Address: "10.0.0.2"},
			"hosts: netns client: 10.0.0.2 on veth0 in hoplat-7-client"},
		{hosts.Step{Kind: hosts.StaleNetNSRemoved, Namespace: "hoplat-6-client"}, "hosts: removed stale netns hoplat-6-client"},
		{hosts.Step{Kind: hosts.StaleTempDirRemoved, Path: "/tmp/hoplat-6"}, "hosts: removed stale temp dir /tmp/hoplat-6"},
		{hosts.Step{Kind: hosts.StaleNotRemoved, Err: errors.New("netns busy")}, "hosts: netns busy"},
		{hosts.Step{Kind: hosts.SSHConnecting, Host: "db", Dest: "me@db:22"}, "hosts: ssh db: connecting to me@db:22"},
		{hosts.Step{Kind: hosts.SSHReady, Host: "db", GOOS: "linux", GOARCH: "arm64", Path: "/tmp/h"}, "hosts: ssh db: linux/arm64, temp dir /tmp/h"},
		{hosts.Step{Kind: hosts.SSHStaleRemoved, Host: "db", Path: "/tmp/old"}, "hosts: ssh db: removed stale /tmp/old"},
		{hosts.Step{Kind: hosts.BinaryShipped, Host: "db", Local: "bin/pongd", Path: "/tmp/h/pongd"}, "hosts: ssh db: shipped bin/pongd to /tmp/h/pongd"},
		{hosts.Step{Kind: hosts.CloseProcess, Host: "db", Process: "pongd"}, "hosts: close: stop pongd on db"},
		{hosts.Step{Kind: hosts.CloseNetNS, Namespace: "hoplat-7-client"}, "hosts: close: delete netns hoplat-7-client"},
		{hosts.Step{Kind: hosts.CloseSSH, Host: "db"}, "hosts: close: close ssh db"},
		{hosts.Step{Kind: hosts.CloseRemoteDir, Host: "db", Path: "/tmp/h"}, "hosts: close: remove db:/tmp/h"},
		{hosts.Step{Kind: hosts.CloseTempDir, Path: "/tmp/hoplat-7"}, "hosts: close: remove /tmp/hoplat-7"},
	} {
		if got := hostStep(c.s); got != c.want {
			t.Errorf("kind %d: %q, want %q", c.s.Kind, got, c.want)
		}
	}
	for k := hosts.NetNSAdded; k <= hosts.CloseTempDir; k++ {
		if got := hostStep(hosts.Step{Kind: k}); got == hostStep(hosts.Step{Kind: hosts.CloseTempDir + 1}) {
			t.Errorf("hosts step kind %d has no words of its own: %q", k, got)
		}
	}
	reached := cluster.Step{Kind: cluster.Reached, Node: "galera1", After: 2500 * time.Millisecond,
		Status: cluster.Status{State: "Synced", ClusterSize: 3, ClusterStatus: "Primary", Ready: true}}
	for _, c := range []struct {
		s    cluster.Step
		want string
	}{
		{cluster.Step{Kind: cluster.Bootstrapping, Node: "galera1", Endpoint: "10.0.0.1:3306"}, "galera: galera1: bootstrapping a new cluster at 10.0.0.1:3306"},
		{cluster.Step{Kind: cluster.Joining, Node: "galera2", Endpoint: "10.0.0.2:3306", SST: "rsync"}, "galera: galera2: joining at 10.0.0.2:3306 (state transfer: rsync)"},
		{reached, "galera: galera1: Synced, cluster size 3, Primary, ready true after 2.5s"},
		{cluster.Step{Kind: cluster.Stopping, Node: "galera2"}, "galera: galera2: stopping"},
	} {
		if got := nodeStep(c.s); got != c.want {
			t.Errorf("kind %d: %q, want %q", c.s.Kind, got, c.want)
		}
	}
}
