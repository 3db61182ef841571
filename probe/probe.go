package probe

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/probe/machine"
)

// Options say how long to probe and where.
type Options struct {
	// Rounds is how many interleaved rounds each figure gets after one
	// discarded warm-up round; 0 means 15: each constant is the median
	// of that many trials, enough for its quartiles and to tell two
	// modes from scatter.
	Rounds int
	// RoundTime is how long one figure's round runs; 0 means 20 ms, which
	// keeps a probe near two seconds and a round at a thousand or more
	// round trips.
	RoundTime time.Duration
	// CPUs to probe on: the first for same-CPU figures, the first two for
	// cross-CPU ones. Empty means the first CPU this thread may use and
	// the first other one on another core, else an SMT sibling.
	CPUs []int
}

func (o Options) withDefaults() Options {
	if o.Rounds <= 0 {
		o.Rounds = 15
	}
	if o.RoundTime <= 0 {
		o.RoundTime = 20 * time.Millisecond
	}
	return o
}

// Run probes the machine into the "machine" object of hopbench's report,
// whose types probe/machine owns. A figure that cannot be measured (no second CPU)
// is left out with the reason; the environment facts are best effort, each
// empty when the kernel does not say. It fails if a measurement fails.
func Run(ctx context.Context, o Options) (machine.Machine, error) {
	o = o.withDefaults()
	begin := time.Now()
	steal := StartSteal()
	m := machine.Machine{Rounds: o.Rounds}
	env(ctx, &m)

	cpus, relation, skip, err := chooseCPUs(o.CPUs)
	if err != nil {
		return machine.Machine{}, err
	}
	m.CPUs, m.CrossRelation, m.CrossSkip = cpus, relation, skip
	pairs, skipped, err := startPairs(cpus)
	defer func() {
		for _, p := range pairs {
			p.stop()
		}
	}()
	if err != nil {
		return machine.Machine{}, err
	}
	m.WakeProcessSkipped = skipped
	rounds, samples, err := measure(ctx, pairs, o)
	if err != nil {
		return machine.Machine{}, err
	}
	setFigures(&m, pairs, rounds, samples, cpus)
	if pct, err := steal.Pct(); err == nil {
		m.StealPct = pct
	}
	m.DurationMS = us(time.Since(begin)) / 1000
	return m, nil
}

// startPairs starts the probe's pairs on cpus: pipe, UNIX and TCP on the
// first CPU, pipe and UNIX across to the second where there is one, and
// the pipe's wake-up to another process (a relay is one). Each pair is
// kept as it starts. Without cat the
// process pair is left out, and skipped says why. On an error it returns
// the pairs started so far, for the caller to stop.
func startPairs(cpus []int) (pairs []*pair, skipped string, err error) {
	type spec struct {
		name      string
		kind      kind
		init, rep int
	}
	specs := []spec{
		{"pipe same-cpu", kindPipe, cpus[0], cpus[0]},
		{"unix same-cpu", kindUnix, cpus[0], cpus[0]},
		{"tcp same-cpu", kindTCP, cpus[0], cpus[0]},
	}
	if len(cpus) > 1 {
		specs = append(specs,
			spec{"pipe cross-cpu", kindPipe, cpus[0], cpus[1]},
			spec{"unix cross-cpu", kindUnix, cpus[0], cpus[1]})
	}
	for _, s := range specs {
		p, err := newPair(s.name, s.kind, s.init, s.rep)
		if err != nil {
			return pairs, "", err
		}
		if err := p.start(); err != nil {
			return pairs, "", err // start has closed p
		}
		pairs = append(pairs, p)
	}
	if p, err := newProcessPair("pipe same-cpu process", cpus[0]); err != nil {
		skipped = err.Error()
	} else if err := p.start(); err != nil {
		skipped = err.Error()
	} else {
		pairs = append(pairs, p)
	}
	return pairs, skipped, nil
}

// setFigures derives m's figures from the pairs' rounds: each pair's, the
// TCP and UNIX legs over the pipe, the wake-ups, and the cross-CPU extra.
func setFigures(m *machine.Machine, pairs []*pair, rounds [][]float64, samples []int, cpus []int) {
	for i, p := range pairs {
		cpuList := fmt.Sprint(p.initCPU)
		if p.replyCPU != p.initCPU {
			cpuList += "," + fmt.Sprint(p.replyCPU)
		}
		m.Figures = append(m.Figures, figure(p.name, cpuList, rounds[i], samples[i]))
	}
	byName := func(name string) []float64 {
		for i, p := range pairs {
			if p.name == name {
				return rounds[i]
			}
		}
		return nil
	}
	same := fmt.Sprint(cpus[0])
	legTCP := figure("tcp leg", same, diff(byName("tcp same-cpu"), byName("pipe same-cpu")), 0)
	legUnix := figure("unix leg", same, diff(byName("unix same-cpu"), byName("pipe same-cpu")), 0)
	m.Figures = append(m.Figures, legTCP, legUnix)
	m.Wake.SameCPU = m.Figure("pipe same-cpu").MedianUS
	m.WakeSocket.SameCPU = m.Figure("unix same-cpu").MedianUS
	if m.WakeProcessSkipped == "" {
		m.WakeProcess.SameCPU = m.Figure("pipe same-cpu process").MedianUS
	}
	m.Leg = machine.LegUS{TCP: legTCP.MedianUS, UNIX: legUnix.MedianUS}
	if len(cpus) > 1 {
		m.Wake.CrossCPU = m.Figure("pipe cross-cpu").MedianUS
		m.WakeSocket.CrossCPU = m.Figure("unix cross-cpu").MedianUS
		m.Figures = append(m.Figures, figure("cross-cpu extra", fmt.Sprintf("%d,%d", cpus[0], cpus[1]),
			diff(byName("pipe cross-cpu"), byName("pipe same-cpu")), 0))
	}
}

// measure runs the pairs in interleaved rounds, the order rotating, so
// that a burst of noise lands on every figure alike and the derived
// differences pair rounds measured moments apart. Round 0 warms caches
// and wakes the CPUs' governors and is dropped. It returns each pair's
// kept one-way times (µs) and its samples.
func measure(ctx context.Context, pairs []*pair, o Options) ([][]float64, []int, error) {
	rounds := make([][]float64, len(pairs))
	samples := make([]int, len(pairs))
	for r := 0; r <= o.Rounds; r++ {
		for i := range pairs {
			if err := ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("probe: %w", err)
			}
			j := (i + r) % len(pairs)
			res := pairs[j].run(o.RoundTime)
			if res.err != nil {
				return nil, nil, res.err
			}
			if r > 0 {
				rounds[j] = append(rounds[j], us(res.oneWay))
				samples[j] += res.samples
			}
		}
	}
	return rounds, samples, nil
}

func figure(name, cpus string, rounds []float64, samples int) machine.Figure {
	return machine.NewFigure(name, cpus, rounds, samples)
}

// diff pairs two figures' rounds, measured moments apart.
func diff(a, b []float64) []float64 {
	d := make([]float64, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return d
}

func us(d time.Duration) float64 { return math.Round(float64(d)/1e1) / 1e2 }

// chooseCPUs picks the probe's CPUs: the first it may use, and another one,
// preferring another core to an SMT sibling since a hop's components
// spread over cores first.
func chooseCPUs(asked []int) (cpus []int, relation string, skip *machine.OneCPU, err error) {
	topo, terr := affinity.ReadCPULayout()
	rel := func(a, b int) string {
		if terr != nil {
			return ""
		}
		r, err := topo.Relation(a, b)
		if err != nil {
			return ""
		}
		return r.String()
	}
	if len(asked) > 0 {
		cpus = asked[:min(2, len(asked))]
		if len(cpus) == 1 {
			return cpus, "", &machine.OneCPU{Asked: true, CPU: cpus[0]}, nil
		}
		return cpus, rel(cpus[0], cpus[1]), nil, nil
	}
	allowed, err := affinity.ThreadCPUs()
	if err != nil {
		return nil, "", nil, fmt.Errorf("probe: choose CPUs: %w", err)
	}
	list := allowed.CPUs()
	if len(list) == 1 {
		return list, "", &machine.OneCPU{CPU: list[0]}, nil
	}
	first := list[0]
	second := list[1]
	for _, c := range list[1:] {
		if r := rel(first, c); r != affinity.SMTSibling.String() {
			second = c
			break
		}
	}
	return []int{first, second}, rel(first, second), nil, nil
}

// env fills in the environment facts; each is left empty when the kernel
// does not say.
func env(ctx context.Context, m *machine.Machine) {
	if f, err := affinity.ReadCPUFacts(); err == nil {
		m.CPUIdle = machine.CPUIdle{Governor: f.IdleGovernor, Driver: f.IdleDriver}
		m.CPUFreqGovernor = f.FreqGovernor
		m.SMT = f.SMT
		for _, s := range f.Siblings {
			m.SMTSiblings = append(m.SMTSiblings, s.String())
		}
		m.IsolatedCPUs = f.Isolated.String()
		m.NoHZFullCPUs = f.NoHZFull.String()
	}
	root := os.DirFS("/")
	v := detectVirt(ctx, root, exec.LookPath)
	m.Virtualization, m.Container, m.VirtSource = v.VM, v.Container, v.Source
	m.Clocksource = readClocksource(root)
}
