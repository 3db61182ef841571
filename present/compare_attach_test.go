package present

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/compare"
)

func TestWriteAttachComparison(t *testing.T) {
	c := &compare.AttachComparison{Schema: compare.Schema, Old: "a.json", New: []string{"b.json"}, Alpha: 0.05,
		Rows: []compare.AttachRow{
			{Name: "to_upstream residence_p50", OldUs: 120.5, NewUs: 320.25, DeltaUs: 199.75, PValue: 0.0001, Significant: true, NOld: 15, NNew: 14},
			{Name: "to_client on_cpu", OldUs: 12.5, NewUs: 12.75, DeltaUs: 0.25, PValue: 0.4, NOld: 15, NNew: 14},
		},
		Differences: []compare.Difference{{Field: "tracer.duty_pct", Old: "10", New: "100"}}}
	var b bytes.Buffer
	if err := WriteAttachComparison(&b, c); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"the runs differ: tracer.duty_pct 10 -> 100\n",
		"old a.json\nnew b.json\n",
		"to_upstream residence_p50  120.50  320.25  +199.75  0.000  15+14\n",
		"to_client on_cpu            12.50   12.75        ~  0.400  15+14\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 100 || strings.HasSuffix(l, " ") {
			t.Errorf("line %q: over 100 columns or trailing blanks", l)
		}
	}
}
