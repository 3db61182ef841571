// Package history keeps hopbench's runs on this machine, one JSON line
// each, so that a run can be judged against the same command's earlier
// runs (hop.JudgeAcrossRuns): a hop that moved between invocations shows
// in no run's own rounds. It reads and writes the file and nothing else.
package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/replace"
)

const (
	// maxLines is how many runs the file keeps, the newest.
	maxLines = 200
	// recent is how many of the latest matching runs a run is judged
	// against: the host's state drifts over hours, so older runs would
	// judge this one against another machine.
	recent = 4
)

// Entry is one run: the command that made it, on which machine, each
// relay path's added p50 and each control's (direct path's) p50, by
// hop.PathKey. Control is absent from runs kept before it was.
type Entry struct {
	Time    time.Time          `json:"time"`
	Command string             `json:"command"`
	Machine string             `json:"machine"`
	Added   map[string]float64 `json:"added_p50_us"`
	Control map[string]float64 `json:"control_p50_us,omitempty"`
}

// DefaultFile is where hopbench keeps its history: hoplat/history.jsonl
// in the user's cache directory ("" when the system names none).
func DefaultFile() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "hoplat", "history.jsonl")
}

// MachineOf names the machine of rep for the history: the kernel, the CPU
// model and count and the idle governor, which a hop's cost follows.
func MachineOf(rep *hop.Report) string {
	m := fmt.Sprintf("%s|%s|%d CPUs", rep.Env.Kernel, rep.Env.CPUModel, rep.Env.Cores)
	if rep.Machine != nil {
		m += "|" + rep.Machine.CPUIdle.Governor
	}
	return m
}

// EntryOf is rep as the history keeps it.
func EntryOf(rep *hop.Report, command string, now time.Time) Entry {
	e := Entry{Time: now.UTC(), Command: command, Machine: MachineOf(rep), Added: map[string]float64{}, Control: map[string]float64{}}
	for _, p := range rep.Paths {
		switch {
		case !p.Measured():
		case p.Relay == hop.Direct && p.Hops == 0:
			if p.LatencyUs.P50 > 0 {
				e.Control[hop.PathKey(p)] = p.LatencyUs.P50
			}
		case p.AddedUs != nil && p.Relay != hop.Direct:
			e.Added[hop.PathKey(p)] = p.AddedUs.P50
		}
	}
	return e
}

// Parse reads a history file's lines; a line that is not an entry (a
// write cut short, another tool's) is skipped and counted.
func Parse(data []byte) (entries []Entry, bad int) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil || e.Command == "" || e.Added == nil {
			bad++
			continue
		}
		entries = append(entries, e)
	}
	if sc.Err() != nil {
		bad++
	}
	return entries, bad
}

// Past is the latest earlier runs of command on machine in entries (at
// most four, oldest first), as each path's added p50 and each control's
// p50 by hop.PathKey, and how many runs that is.
func Past(entries []Entry, command, machine string) (hop.Past, int) {
	var match []Entry
	for _, e := range entries {
		if e.Command == command && e.Machine == machine {
			match = append(match, e)
		}
	}
	if len(match) > recent {
		match = match[len(match)-recent:]
	}
	out := hop.Past{Added: map[string][]float64{}, Control: map[string][]float64{}}
	for _, e := range match {
		for k, v := range e.Added {
			out.Added[k] = append(out.Added[k], v)
		}
		for k, v := range e.Control {
			out.Control[k] = append(out.Control[k], v)
		}
	}
	return out, len(match)
}

// Load reads file; a file not there yet is an empty history.
func Load(file string) ([]Entry, int, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	entries, bad := Parse(data)
	return entries, bad, nil
}

// Append adds e to file, keeping the newest maxLines runs; the file is
// replaced whole (replace.File), so that a run stopped mid-write leaves
// the old history as it was.
func Append(file string, e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(old), "\n"), "\n")
	if len(old) == 0 {
		lines = nil
	}
	lines = append(lines, string(line))
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return replace.File(file, func(w io.Writer) error {
		_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
		return err
	})
}
