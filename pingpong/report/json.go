package report

import (
	"github.com/hoplat/hoplat/affinity"
)

// ReportJSON is the pingpong --format json document (hoplat.pingpong.v1):
// schema first, then the config and environment the figures came from, then
// one entry per thread count. Package present/load writes it; a driver
// reads pingpong's output back into it. Partial and PartialReason are
// Report's, absent from a complete report.
type ReportJSON struct {
	Schema        string       `json:"schema"`
	Partial       bool         `json:"partial,omitempty"`
	PartialReason string       `json:"partial_reason,omitempty"`
	Config        any          `json:"config"`
	Env           affinity.Env `json:"env"`
	Results       []StepJSON   `json:"results"`
}

// StepJSON is a step's figures plus its kept runs' latency histogram,
// encoded (Histogram.Encode), so that a driver can merge rounds exactly
// instead of averaging percentiles.
type StepJSON struct {
	StepResult
	Histogram string `json:"histogram"`
}
