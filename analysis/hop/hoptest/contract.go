package hoptest

import (
	"encoding/json"
	"fmt"

	"github.com/hoplat/hoplat/analysis/hop"
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
	if m, ok := doc["machine"]; ok {
		obj, ok := m.(map[string]any)
		if !ok {
			return fmt.Errorf("hoptest: check json: machine not an object")
		}
		if err := checkMachine(obj); err != nil {
			return err
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
		} else if failed, _ := obj["failed_rounds"].(float64); obj["relay"] != string(hop.Direct) && failed == 0 && obj["unmeasured"] != true {
			// A path none of whose rounds pairs with its baseline's has
			// no added latency, nor one an interrupted run never
			// measured; one that ran cleanly must.
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

// CheckExplained holds data to the fields "Explaining a hop" adds to
// hoplat.hopbench.v1, on top of CheckJSON: what every default run of
// hopbench must carry, though a report of an older run need not.
func CheckExplained(data []byte) error {
	if err := CheckJSON(data); err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("hoptest: check explained: %w", err)
	}
	m, ok := doc["machine"].(map[string]any)
	if !ok {
		return fmt.Errorf("hoptest: check explained: machine missing or not an object")
	}
	if err := checkMachine(m); err != nil {
		return err
	}
	paths, _ := doc["paths"].([]any)
	for i, p := range paths {
		obj, _ := p.(map[string]any)
		where := fmt.Sprintf("paths[%d] (%v)", i, obj["name"])
		if err := fields(where, obj, names("regime"), nil); err != nil {
			return err
		}
		switch obj["regime"] {
		case "packed", "spread", "custom", "none":
		default:
			return fmt.Errorf("hoptest: check explained: %s.regime %q: want packed, spread, custom or none", where, obj["regime"])
		}
		if _, ok := obj["stable"].(bool); !ok {
			return fmt.Errorf("hoptest: check explained: %s.stable missing or not a boolean", where)
		}
		if err := fields(where, obj, names("unstable_reason"), nil); err != nil {
			return err
		}
		rounds, ok := obj["rounds_p50_us"].([]any)
		if !ok {
			return fmt.Errorf("hoptest: check explained: %s.rounds_p50_us missing or not a list", where)
		}
		for j, r := range rounds {
			if _, ok := r.(float64); !ok {
				return fmt.Errorf("hoptest: check explained: %s.rounds_p50_us[%d] not a number", where, j)
			}
		}
		for _, k := range []string{"relay_wake_us", "client_wake_us"} {
			if v, ok := obj[k]; ok {
				if _, ok := v.(float64); !ok {
					return fmt.Errorf("hoptest: check explained: %s.%s not a number", where, k)
				}
			}
		}
		if err := checkDecomposition(where, obj); err != nil {
			return err
		}
		if e, ok := obj["endpoints"]; ok {
			em, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf("hoptest: check explained: %s.endpoints not an object", where)
			}
			if err := fields(where+".endpoints", em, nil, names("client_cpu_us", "server_cpu_us")); err != nil {
				return err
			}
		}
		if c, ok := obj["connect"]; ok {
			cm, ok := c.(map[string]any)
			if !ok {
				return fmt.Errorf("hoptest: check explained: %s.connect not an object", where)
			}
			if err := fields(where+".connect", cm, nil, names("p50_us", "p99_us", "n")); err != nil {
				return err
			}
		}
		pl, ok := obj["placement"].(map[string]any)
		if !ok {
			return fmt.Errorf("hoptest: check explained: %s.placement missing or not an object", where)
		}
		for k, v := range pl {
			if _, ok := v.(string); !ok {
				return fmt.Errorf("hoptest: check explained: %s.placement.%s not a CPU list", where, k)
			}
		}
	}
	return nil
}

// checkDecomposition checks that a relay path placed by the run carries
// its split and a direct path none.
func checkDecomposition(where string, obj map[string]any) error {
	d, has := obj["decomposition_us"]
	_, added := obj["added_us"]
	switch {
	case obj["relay"] == string(hop.Direct) && has:
		return fmt.Errorf("hoptest: check explained: %s: a direct path has no decomposition_us", where)
	case obj["relay"] == string(hop.Direct) || obj["regime"] == "none" || !added:
		return nil
	case !has:
		return fmt.Errorf("hoptest: check explained: %s: decomposition_us missing", where)
	}
	dm, ok := d.(map[string]any)
	if !ok {
		return fmt.Errorf("hoptest: check explained: %s.decomposition_us not an object", where)
	}
	if err := fields(where+".decomposition_us", dm, names("method"), names("relay_code", "wakeups", "kernel", "residual")); err != nil {
		return err
	}
	if e, ok := dm["endpoints"]; ok {
		// Present only when both the path and its baseline read them.
		if _, ok := e.(float64); !ok {
			return fmt.Errorf("hoptest: check explained: %s.decomposition_us.endpoints not a number", where)
		}
		if _, ok := obj["endpoints"]; !ok && dm["method"] != "trace" {
			return fmt.Errorf("hoptest: check explained: %s: decomposition_us.endpoints without the path's endpoints", where)
		}
	}
	if x, ok := dm["mean_excess"]; ok {
		// Present only beside the endpoints, whose CPU it corrects.
		if _, ok := x.(float64); !ok {
			return fmt.Errorf("hoptest: check explained: %s.decomposition_us.mean_excess not a number", where)
		}
		if _, ok := dm["endpoints"]; !ok {
			return fmt.Errorf("hoptest: check explained: %s: decomposition_us.mean_excess without endpoints", where)
		}
	}
	switch dm["method"] {
	case "probe":
	case "timestamps":
		// Measured wake-ups stand on the stamps they came from: the
		// relays' and the client's, both on the path.
		if err := fields(where, obj, nil, names("relay_wake_us", "client_wake_us")); err != nil {
			return fmt.Errorf("%w (decomposition_us.method timestamps)", err)
		}
	case "trace":
		// A traced split stands on the path's traced requests, with the
		// names of DESIGN.md's "Traced requests".
		if err := checkTrace(where, obj); err != nil {
			return err
		}
	default:
		return fmt.Errorf("hoptest: check explained: %s.decomposition_us.method %q: want probe, timestamps or trace", where, dm["method"])
	}
	// A share of nothing is no figure: a hop whose added p50 is not
	// above zero (within the noise of a kernel-only hop, say) has its
	// split but no explained_pct.
	if a, ok := obj["added_us"].(map[string]any); ok {
		if p50, ok := a["p50"].(float64); ok && p50 <= 0 {
			if _, has := obj["explained_pct"]; has {
				return fmt.Errorf("hoptest: check explained: %s: explained_pct of an added p50 of %v", where, p50)
			}
			return nil
		}
	}
	return fields(where, obj, nil, names("explained_pct"))
}

// checkMachine checks the "machine" object; wake_us.cross_cpu is absent on
// a machine with one CPU, when cross_cpu_skipped says why.
func checkMachine(m map[string]any) error {
	if err := fields("machine", m, names("virtualization"), names("steal_pct")); err != nil {
		return err
	}
	if _, ok := m["smt"].(bool); !ok {
		return fmt.Errorf("hoptest: check json: machine.smt missing or not a boolean")
	}
	wake, ok := m["wake_us"].(map[string]any)
	if !ok {
		return fmt.Errorf("hoptest: check json: machine.wake_us missing")
	}
	want := names("same_cpu", "cross_cpu")
	if _, skipped := m["cross_cpu_skipped"].(string); skipped {
		want = names("same_cpu")
	}
	if err := fields("machine.wake_us", wake, nil, want); err != nil {
		return err
	}
	leg, ok := m["leg_us"].(map[string]any)
	if !ok {
		return fmt.Errorf("hoptest: check json: machine.leg_us missing")
	}
	if err := fields("machine.leg_us", leg, nil, names("tcp", "unix")); err != nil {
		return err
	}
	idle, ok := m["cpuidle"].(map[string]any)
	if !ok {
		return fmt.Errorf("hoptest: check json: machine.cpuidle missing")
	}
	return fields("machine.cpuidle", idle, names("governor", "driver"), nil)
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

// checkTrace checks a path's "trace" object against DESIGN.md's "Traced
// requests": its figures, both splits with every part, and identity within
// the 5% the segments must keep.
func checkTrace(where string, obj map[string]any) error {
	tr, ok := obj["trace"].(map[string]any)
	if !ok {
		return fmt.Errorf("hoptest: check explained: %s: method trace without a trace object", where)
	}
	if err := fields(where+".trace", tr, names("cause"), names("requests", "identity_pct", "overhead_pct")); err != nil {
		return err
	}
	parts := names("relay_user", "relay_kernel", "runnable", "idle_exit", "softirq", "legs", "endpoints", "other")
	for _, k := range []string{"p50_split_us", "p99_split_us"} {
		sp, ok := tr[k].(map[string]any)
		if !ok {
			return fmt.Errorf("hoptest: check explained: %s.trace.%s missing", where, k)
		}
		if err := fields(where+".trace."+k, sp, nil, parts); err != nil {
			return err
		}
	}
	if id := tr["identity_pct"].(float64); id > 5 {
		return fmt.Errorf("hoptest: check explained: %s.trace.identity_pct %.2f > 5", where, id)
	}
	return nil
}
