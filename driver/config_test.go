package driver

import (
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
)

func TestConfigCheck(t *testing.T) {
	real, _ := ParseBackend("mysql://u:p@127.0.0.1:3306/d")
	online := affinity.NewCPUSet(0, 1)
	gpu, err := affinity.ParsePlacement("gpu=0", online)
	if err != nil {
		t.Fatal(err)
	}
	placed, err := affinity.ParsePlacement("client=0 relay=1 server=1", online)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		err  string
	}{
		{"default", func(*Config) {}, ""},
		{"zero value", func(c *Config) { *c = Config{} }, ""},
		{"discard all", func(c *Config) { c.Rounds, c.Discard = 2, 2 }, "discard 2 of 2"},
		{"no threads", func(c *Config) { c.Threads = []int{0} }, "threads 0"},
		{"negative hops", func(c *Config) { c.Hops = []int{-1} }, "hops -1"},
		{"bad proto", func(c *Config) { c.Proto = "http" }, `proto "http"`},
		{"rows on echo", func(c *Config) { c.Proto, c.Rows = ProtoEcho, []int{10} }, "rows [10]"},
		{"placement of an unknown component", func(c *Config) { c.Placement = gpu }, `unknown component "gpu"`},
		{"placement of the three", func(c *Config) { c.Placement = placed }, ""},
		{"service time on a real server", func(c *Config) { c.Backend, c.ServiceTimes = real, []time.Duration{0} }, "embedded backend"},
	} {
		cfg := DefaultConfig()
		tc.edit(&cfg)
		err := cfg.Check()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	c := Config{}.withDefaults()
	if c.Proto != EmbeddedProto || len(c.Relays) != len(hop.DefaultRelays) || len(c.Transports) != 2 || c.Rounds != 5 || c.Time != time.Second {
		t.Errorf("defaults %+v", c)
	}
	if len(c.Paths()) != 12 {
		t.Errorf("%d default paths, want 12", len(c.Paths()))
	}
	real, _ := ParseBackend("mysql://u:p@127.0.0.1:3306/d")
	if c := (Config{Backend: real}).withDefaults(); c.Proto != ProtoMySQL {
		t.Errorf("a real backend speaks %s", c.Proto)
	}
}
