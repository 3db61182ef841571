package hoptest

import (
	"encoding/json"
	"fmt"

	"github.com/hoplat/hoplat/results/hop"
)

// CheckJSON reports where data departs from the hoplat.hopbench.v1 contract:
// the fields scripts rely on, present and of the right kind. It reads the
// document as a script would, as untyped JSON, so that it catches what
// decoding into hop.Report would silently fill with zeros.
func CheckJSON(data []byte) error {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("hoptest: check json: %w", err)
	}
	if doc["schema"] != hop.Schema {
		return fmt.Errorf("hoptest: check json: schema %v, want %s", doc["schema"], hop.Schema)
	}
	for _, k := range []string{"config", "env"} {
		if _, ok := doc[k].(map[string]any); !ok {
			return fmt.Errorf("hoptest: check json: %q missing or not an object", k)
		}
	}
	paths, ok := doc["paths"].([]any)
	if !ok {
		return fmt.Errorf("hoptest: check json: paths missing or not a list")
	}
	for i, p := range paths {
		obj, ok := p.(map[string]any)
		if !ok {
			return fmt.Errorf("hoptest: check json: paths[%d] not an object", i)
		}
		where := fmt.Sprintf("paths[%d]", i)
		if err := fields(where, obj, names("name", "relay", "client_transport", "upstream_transport"),
			names("hops", "threads", "tps", "errors")); err != nil {
			return err
		}
		lat, ok := obj["latency_us"].(map[string]any)
		if !ok {
			return fmt.Errorf("hoptest: check json: %s.latency_us missing", where)
		}
		if err := fields(where+".latency_us", lat, nil, names("p50", "p95", "p99")); err != nil {
			return err
		}
		if a, ok := obj["added_us"]; ok {
			added, ok := a.(map[string]any)
			if !ok {
				return fmt.Errorf("hoptest: check json: %s.added_us not an object", where)
			}
			if err := fields(where+".added_us", added, nil, names("p50", "p99")); err != nil {
				return err
			}
			if ci, ok := added["ci95_p50"].([]any); !ok || len(ci) != 2 {
				return fmt.Errorf("hoptest: check json: %s.added_us.ci95_p50 not [lo, hi]", where)
			}
		} else if failed, _ := obj["failed_rounds"].(float64); obj["relay"] != string(hop.Direct) && failed == 0 {
			// A path none of whose rounds pairs with its baseline's has
			// no added latency; one that ran cleanly must.
			return fmt.Errorf("hoptest: check json: %s (%v) has no added_us", where, obj["name"])
		}
	}
	chains, _ := doc["chains"].([]any)
	for i, c := range chains {
		obj, ok := c.(map[string]any)
		if !ok {
			return fmt.Errorf("hoptest: check json: chains[%d] not an object", i)
		}
		where := fmt.Sprintf("chains[%d]", i)
		if err := fields(where, obj, names("relay", "transport"), names("per_hop_us", "intercept_us", "r2")); err != nil {
			return err
		}
		hops, ok1 := obj["hops"].([]any)
		p50, ok2 := obj["p50_us"].([]any)
		ci, ok3 := obj["per_hop_ci95"].([]any)
		if !ok1 || !ok2 || !ok3 || len(hops) != len(p50) || len(ci) != 2 {
			return fmt.Errorf("hoptest: check json: %s: hops, p50_us or per_hop_ci95 malformed", where)
		}
	}
	return nil
}

func names(n ...string) []string { return n }

func fields(where string, obj map[string]any, strs, nums []string) error {
	for _, k := range strs {
		if _, ok := obj[k].(string); !ok {
			return fmt.Errorf("hoptest: check json: %s.%s missing or not a string", where, k)
		}
	}
	for _, k := range nums {
		if _, ok := obj[k].(float64); !ok {
			return fmt.Errorf("hoptest: check json: %s.%s missing or not a number", where, k)
		}
	}
	return nil
}
