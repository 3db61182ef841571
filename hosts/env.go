package hosts

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hoplat/hoplat/affinity"
)

// envScript prints one KEY=value line per field from the commands every
// Linux and BSD has; a field it cannot read is left empty.
const envScript = `echo "hostname=$(uname -n)"
echo "uname=$(uname -sm)"
echo "kernel=$(uname -r)"
echo "cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null)"
sed -n 's/^model name[[:space:]]*:[[:space:]]*/cpu_model=/p' /proc/cpuinfo 2>/dev/null | head -n 1
echo "clock_source=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"`

// Env reads host name's environment with one command there.
func (tb *Testbed) Env(ctx context.Context, name string) (affinity.Env, error) {
	out, err := tb.Run(ctx, name, "/bin/sh", "-c", envScript)
	if err != nil {
		return affinity.Env{}, err
	}
	e, err := parseEnv(string(out))
	if err != nil {
		return affinity.Env{}, fmt.Errorf("hosts: %s: environment: %w", name, err)
	}
	return e, nil
}

// parseEnv reads envScript's output.
func parseEnv(out string) (affinity.Env, error) {
	var e affinity.Env
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "hostname":
			e.Hostname = v
		case "uname":
			goos, goarch, err := platform(v)
			if err != nil {
				return affinity.Env{}, err
			}
			e.OS, e.Arch = goos, goarch
		case "kernel":
			e.Kernel = v
		case "cores":
			if v == "" {
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return affinity.Env{}, fmt.Errorf("cores %q: want a positive number", v)
			}
			e.Cores = n
		case "cpu_model":
			e.CPUModel = v
		case "clock_source":
			e.ClockSource = v
		}
	}
	if err := sc.Err(); err != nil {
		return affinity.Env{}, err
	}
	if e.OS == "" {
		return affinity.Env{}, fmt.Errorf("no uname line in %q", clip(out))
	}
	return e, nil
}
