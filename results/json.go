package results

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/hoplat/hoplat/affinity"
)

// ReportJSON is the pingpong --format json document (hoplat.pingpong.v1):
// schema first, then the config and environment the figures came from, then
// one entry per thread count. WriteJSON writes it; a driver reads pingpong's
// output back into it.
type ReportJSON struct {
	Schema  string       `json:"schema"`
	Config  any          `json:"config"`
	Env     affinity.Env `json:"env"`
	Results []StepJSON   `json:"results"`
}

// StepJSON is a step's figures plus its kept runs' latency histogram,
// encoded (Histogram.Encode), so that a driver can merge rounds exactly
// instead of averaging percentiles.
type StepJSON struct {
	StepResult
	Histogram string `json:"histogram"`
}

// WriteJSON writes r as the hoplat.pingpong.v1 JSON document.
func WriteJSON(w io.Writer, r Report) error {
	doc := ReportJSON{Schema: r.Schema, Config: r.Config, Env: r.Env, Results: []StepJSON{}}
	for _, s := range r.Results() {
		enc, err := s.LatencyHist.Encode()
		if err != nil {
			return err
		}
		doc.Results = append(doc.Results, StepJSON{StepResult: s, Histogram: enc})
	}
	if doc.Schema == "" {
		doc.Schema = SchemaPingpong
	}
	if doc.Env.Pinning == nil {
		doc.Env.Pinning = map[string]string{} // "pinning": {} when none, never null
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("results: json report: %w", err)
	}
	return nil
}
