package hop

// Sweep is a run of several client instances at once, in lock-step through
// the thread sweep, each against one of several servers in turn: RonDB's
// autobench with SYSBENCH_INSTANCES and SERVER_HOST="a;b". Its figures
// are each instance's and their sum per thread count.
type Sweep struct {
	Instances int           `json:"instances"`
	Servers   []SweepServer `json:"servers"`
	// Rows holds one entry per thread count, in the order run; Threads is
	// each instance's own thread count, as autobench's.
	Rows []SweepRow `json:"rows"`
}

// SweepServer is one server of a sweep and where it answers.
type SweepServer struct {
	Name    string `json:"name"`    // the backend (password masked), or "embedded on HOST"
	Address string `json:"address"` // what the instances dial
	Host    string `json:"host,omitempty"`
}

// SweepRow is one thread count of a sweep.
type SweepRow struct {
	Threads int `json:"threads"`
	// MeanTPS is the instances' tps summed, the mean over the kept runs:
	// the figure of autobench's final table ("Threads: 16 Mean: 1684").
	MeanTPS float64 `json:"mean_tps"`
	// RunsTPS is that sum in every run, discarded ones included.
	RunsTPS   []float64       `json:"runs_tps"`
	Instances []SweepInstance `json:"instances"`
	Errors    int64           `json:"errors"`
	Ignored   int64           `json:"ignored_errors,omitempty"`
}

// SweepInstance is one client instance's figures at one thread count,
// means over the kept runs.
type SweepInstance struct {
	Instance int     `json:"instance"` // from 1
	Server   int     `json:"server"`   // index into Sweep.Servers, from 0
	TPS      float64 `json:"tps"`
	P95Us    float64 `json:"p95_us"`
	Errors   int64   `json:"errors"`
	Ignored  int64   `json:"ignored_errors,omitempty"`
	Failed   string  `json:"failed,omitempty"` // the first run that produced no figures, and why
}
