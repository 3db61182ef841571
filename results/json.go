package results

import (
	"encoding/json"
	"fmt"
	"io"
)

// reportJSON is the pingpong --format json document (DESIGN.md, "JSON fields
// that scripts rely on"): schema first, then the config and environment the
// figures came from, then one entry per thread count.
type reportJSON struct {
	Schema  string       `json:"schema"`
	Config  any          `json:"config"`
	Env     Env          `json:"env"`
	Results []StepResult `json:"results"`
}

// WriteJSON writes r as the hoplat.pingpong.v1 JSON document.
func WriteJSON(w io.Writer, r Report) error {
	doc := reportJSON{Schema: r.Schema, Config: r.Config, Env: r.Env, Results: r.Results()}
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
