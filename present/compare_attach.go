package present

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/present/phrase"
)

// WriteAttachComparisonJSON writes c as hoplat.compare.v1, indented.
func WriteAttachComparisonJSON(w io.Writer, c *compare.AttachComparison) error {
	phrase.FillAttachComparison(c)
	return writeIndented(w, c)
}

// WriteAttachComparison prints two attach runs side by side in
// benchstat's manner: per direction its residence p50 and each part of
// its split, each side's median over its windows, the change in µs or
// "~" where none is called, the p value and the windows each side had.
func WriteAttachComparison(w io.Writer, c *compare.AttachComparison) error {
	phrase.FillAttachComparison(c)
	var b strings.Builder
	for _, d := range c.Differences {
		fmt.Fprintf(&b, "the runs differ: %s %s -> %s\n", d.Field, orEmpty(d.Old), orEmpty(d.New))
	}
	fmt.Fprintf(&b, "residence_p50: the median of the windows' p50 residence (µs); a part: the median of the\n"+
		"windows' mean per chunk (µs); n: windows old+new\n")
	fmt.Fprintf(&b, "~: no change called (Mann-Whitney U, α = %g, or a change under %d%% of the old hop, both\n"+
		"directions' mean residences summed, which two runs of one proxy move by)\n", c.Alpha, compare.AttachNoisePct)
	fmt.Fprintf(&b, "\nold %s\nnew %s\n", c.Old, strings.Join(c.New, ", "))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := len("figure")
	for _, r := range c.Rows {
		width = max(width, len(r.Name))
	}
	fmt.Fprintf(tw, "%-*s\told\tnew\tchange\tp\tn\t\n", width, "figure")
	short := false
	for _, r := range c.Rows {
		ch := "~"
		if r.Significant {
			ch = fmt.Sprintf("%+.2f", r.DeltaUs)
		}
		short = short || len(r.Warnings) > 0
		fmt.Fprintf(tw, "%-*s\t%.2f\t%.2f\t%s\t%s\t%d+%d\t\n", width, r.Name, r.OldUs, r.NewUs, ch, pValue(r.PValue), r.NOld, r.NNew)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if short {
		fmt.Fprintf(&b, "(some figures had too few windows for the U test ever to reach α = %g: trace longer, or at a\n"+
			"higher --duty)\n", c.Alpha)
	}
	var out strings.Builder
	for _, l := range strings.Split(b.String(), "\n") {
		out.WriteString(strings.TrimRight(l, " "))
		out.WriteByte('\n')
	}
	_, err := io.WriteString(w, strings.TrimSuffix(out.String(), "\n"))
	return err
}

func orEmpty(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}
