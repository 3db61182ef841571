package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/cluster"
	"github.com/hoplat/hoplat/internal/cli"
)

func TestGaleraFlags(t *testing.T) {
	c, quiet, err := galeraFlags([]string{"--table-size", "1000", "--time", "5s", "--paths", "direct;haproxy;epoll",
		"--workloads", "oltp_read_write", "--direct-threads", "8", "--proxy-threads", "24", "-q"})
	if err != nil {
		t.Fatal(err)
	}
	if c.TableSize != 1000 || c.Tables != 10 || c.Time != 5*time.Second || c.DirectThreads != 8 || c.ProxyThreads != 24 ||
		!slices.Equal(c.Paths, []string{"direct", "haproxy", "epoll"}) || !slices.Equal(c.Workloads, []string{cluster.ReadWrite}) ||
		!quiet || c.IgnoreErrors != cluster.DefaultIgnoreErrors {
		t.Errorf("got %+v", c)
	}
	d, quiet, err := galeraFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.DirectThreads != 150 || d.ProxyThreads != 450 || !slices.Equal(d.Paths, cluster.DefaultPaths()) || quiet {
		t.Errorf("defaults %+v", d)
	}
}

func TestGaleraFlagsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workloads", "oltp_point_select"}, `workload "oltp_point_select"`},
		{[]string{"--paths", "direct,socat"}, `path "socat"`},
		{[]string{"--time", "500ms"}, "at least 1s"},
		{[]string{"--nodes", "0"}, `--nodes "0": want at least 1`},
		{[]string{"--nodes", "12"}, "12 nodes"},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		_, _, err := galeraFlags(tc.args)
		if err == nil || !cli.IsUsage(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}
