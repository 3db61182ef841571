package load

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/hoplat/hoplat/pingpong/report"
)

// WriteJSON writes r as the hoplat.pingpong.v1 JSON document.
func WriteJSON(w io.Writer, r report.Report) error {
	doc := report.ReportJSON{Schema: r.Schema, Partial: r.Partial, PartialReason: partialReason(r),
		Config: config(r), Env: r.Env, Results: []report.StepJSON{}}
	for _, s := range r.Results() {
		enc, err := s.LatencyHist.Encode()
		if err != nil {
			return err
		}
		doc.Results = append(doc.Results, report.StepJSON{StepResult: s, Histogram: enc})
	}
	if doc.Schema == "" {
		doc.Schema = report.SchemaPingpong
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
