package load

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hoplat/hoplat/pingpong/report"
)

// decodeReport writes r as JSON and reads it back untyped, as a script would.
func decodeReport(t *testing.T, r report.Report) map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("unmarshal: %v\n%s", err, b.Bytes())
	}
	return doc
}

func requireKeys(t *testing.T, where string, v any, keys ...string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: %T, want an object", where, v)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s lacks %q", where, k)
		}
	}
	return m
}

func forbidKeys(t *testing.T, where string, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; ok {
			t.Errorf("%s has %q, which only belongs when measured", where, k)
		}
	}
}

// TestJSONContract checks every field of pingpong's JSON report that
// scripts rely on, in both a closed-loop echo step and an open-loop mysql one.
func TestJSONContract(t *testing.T) {
	doc := requireKeys(t, "document", decodeReport(t, synthReport()), "schema", "config", "env", "results")
	if doc["schema"] != report.SchemaPingpong {
		t.Errorf("schema = %v, want %q", doc["schema"], report.SchemaPingpong)
	}
	requireKeys(t, "env", doc["env"], "kernel", "cpu_model", "cores", "gomaxprocs", "go_version", "clock_source", "hostname", "pinning")
	results, ok := doc["results"].([]any)
	if !ok || len(results) != 2 {
		t.Fatalf("results = %v, want two steps", doc["results"])
	}
	for i, res := range results {
		step := requireKeys(t, "results[]", res, "threads", "tps", "latency_us", "errors", "reconnects", "fairness", "runs", "outlier_runs")
		requireKeys(t, "tps", step["tps"], "mean", "median", "stddev", "ci95")
		if ci, ok := step["tps"].(map[string]any)["ci95"].([]any); !ok || len(ci) != 2 {
			t.Errorf("tps.ci95 = %v, want [lo, hi]", step["tps"].(map[string]any)["ci95"])
		}
		latency := []string{"min", "avg", "stddev", "p50", "p90", "p95", "p99", "p999", "max"}
		requireKeys(t, "latency_us", step["latency_us"], latency...)
		requireKeys(t, "fairness", step["fairness"], "events_avg", "events_stddev")
		if _, ok := step["outlier_runs"].([]any); !ok {
			t.Errorf("outlier_runs = %v, want an array (never null)", step["outlier_runs"])
		}
		for _, run := range step["runs"].([]any) {
			r := requireKeys(t, "runs[]", run, "index", "discarded", "outlier", "elapsed_s", "events", "tps", "errors", "latency_us")
			requireKeys(t, "runs[].latency_us", r["latency_us"], "p50", "p95", "p99", "max")
		}
		switch i {
		case 0: // closed-loop echo: no qps, no corrected latency, no connect
			forbidKeys(t, "closed-loop step", step, "qps", "latency_corrected_us", "connect_us")
			if o := step["outlier_runs"].([]any); len(o) != 1 || o[0] != 0.0 {
				t.Errorf("outlier_runs = %v, want [0] (the series' slow first run)", o)
			}
		case 1: // open-loop mysql
			requireKeys(t, "qps", step["qps"], "mean", "median", "stddev", "ci95")
			requireKeys(t, "latency_corrected_us", step["latency_corrected_us"], latency...)
			requireKeys(t, "connect_us", step["connect_us"], latency...)
		}
	}
}

func TestJSONSchemaOverride(t *testing.T) {
	doc := decodeReport(t, report.Report{Schema: "hoplat.test.v9"})
	if doc["schema"] != "hoplat.test.v9" {
		t.Errorf("schema = %v, want the report's own", doc["schema"])
	}
	if p, ok := doc["env"].(map[string]any)["pinning"].(map[string]any); !ok || len(p) != 0 {
		t.Errorf("env.pinning = %v, want {} when nothing was pinned", doc["env"].(map[string]any)["pinning"])
	}
	if r, ok := doc["results"].([]any); !ok || len(r) != 0 {
		t.Errorf("results = %v, want []", doc["results"])
	}
}
