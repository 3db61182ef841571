package driver

import (
	"fmt"

	"github.com/hoplat/hoplat/internal/locate"
)

// Locator finds the program a component runs.
type Locator func(name string) (string, error)

// Locate finds name next to the running executable first — so that
// bin/hopbench drives the bin/pongd built with it, not an older one on PATH —
// then on PATH and in the sbin directories (HAProxy lives in /usr/sbin).
func Locate(name string) (string, error) {
	p, err := locate.Program(name)
	if err != nil {
		return "", fmt.Errorf("driver: %s not found next to hopbench or on PATH (%s)", name, installHint(name))
	}
	return p, nil
}

func installHint(name string) string {
	switch name {
	case "pongd", "pingpong", "hoprelay", "hopbench":
		return "run `make build`"
	}
	return "install it with `make deps`"
}
