package driver

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// AllowedCPUs is the CPU list process pid may run on, from the
// Cpus_allowed_list line of /proc/PID/status (proc(5)): what a placement
// actually obtained, whoever applied it.
func AllowedCPUs(pid int) (string, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("driver: /proc/%d/status: no Cpus_allowed_list", pid)
}
