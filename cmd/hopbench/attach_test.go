package main

import (
	"io"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/cli"
)

// TestAttachNoProcess: a pid that does not exist is one line naming it,
// a usage error (exit status 2), found before any BPF is loaded.
func TestAttachNoProcess(t *testing.T) {
	err := run([]string{"attach", "--pid", "999999", "--time", "1s"})
	if err == nil || !strings.Contains(err.Error(), "999999") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("attach --pid 999999: %v, want one line naming 999999", err)
	}
	if !cli.IsUsage(err) {
		t.Errorf("attach --pid 999999: %v is not a usage error (exit 2)", err)
	}
}

func TestAttachFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--pid", "1", "--comm", "x"},
		{"--pid", "1", "--format", "csv"},
		{"--pid", "1", "--time", "-1s"},
	} {
		if err := runAttach(args, io.Discard); !cli.IsUsage(err) {
			t.Errorf("attach %q: %v, want a usage error", args, err)
		}
	}
}
