package report

import "github.com/hoplat/hoplat/iomodel"

// RunConfig is the load client's configuration as its report carries it
// (Report.Config, the JSON's "config"): what the run was asked for and
// the I/O model it ran. IOReason says what chose that model, in words
// package present/load composes from IOChoice; a report read back from
// JSON keeps its own.
type RunConfig struct {
	Target         string         `json:"target"`
	Proto          string         `json:"proto"`
	Protocol       any            `json:"protocol"`
	Threads        []int          `json:"threads"`
	Time           string         `json:"time"`
	Warmup         string         `json:"warmup"`
	Runs           int            `json:"runs"`
	Discard        int            `json:"discard"`
	Rate           float64        `json:"rate"`
	IO             iomodel.Model  `json:"io"`
	IOChosen       iomodel.Model  `json:"io_chosen"`
	IOReason       string         `json:"io_reason"`
	IOChoice       iomodel.Choice `json:"-"`
	CPUs           []int          `json:"cpus"`
	ReportInterval string         `json:"report_interval"`
	Clock          string         `json:"clock"`
	RXStamps       bool           `json:"rx_stamps"`
}
