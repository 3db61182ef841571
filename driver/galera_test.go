package driver

import (
	"testing"

	"github.com/hoplat/hoplat/cluster"
)

// The Galera bench hands Build the hoprelay it was given, and locates
// nothing for paths it does not run.
func TestGaleraProgramsUseTheConfiguredRelay(t *testing.T) {
	loc, err := galeraPrograms(cluster.BenchConfig{Paths: []string{cluster.PathDirect, "epoll", "splice"}, Hoprelay: "/opt/x/hoprelay"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := loc("hoprelay"); err != nil || got != "/opt/x/hoprelay" {
		t.Errorf("hoprelay: got %q, %v; want the configured /opt/x/hoprelay", got, err)
	}
	if _, err := galeraPrograms(cluster.BenchConfig{Paths: []string{cluster.PathDirect}}); err != nil {
		t.Errorf("direct alone needs no proxy program: %v", err)
	}
}
