package routecheck

import (
	"bufio"
	"strconv"
	"strings"
)

// sysbenchTotals are the counts sysbench prints at the end of a run
// ("SQL statistics").
type sysbenchTotals struct {
	Read, Write, Other, Total int64 // queries performed, by kind
	Transactions              int64
	Errors                    int64 // "ignored errors"
	Reconnects                int64
}

// parseSysbench reads the totals from sysbench's output; ok is false
// when the output holds no transactions line (a run that failed).
func parseSysbench(out string) (totals sysbenchTotals, ok bool) {
	fields := map[string]*int64{
		"read": &totals.Read, "write": &totals.Write, "other": &totals.Other, "total": &totals.Total,
		"transactions": &totals.Transactions, "ignored errors": &totals.Errors, "reconnects": &totals.Reconnects,
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		name, rest, found := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		p := fields[name]
		if !found || p == nil {
			continue
		}
		num, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			continue
		}
		*p = n
		if name == "transactions" {
			ok = true
		}
	}
	return totals, ok
}
