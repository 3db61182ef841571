package hoststest_test

import (
	"testing"

	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/hosts/hoststest"
)

// A fuzz target of a topology reader seeds from hosts' examples and holds
// every parse to the same checks.
func Example() {
	fuzz := func(f *testing.F) {
		hoststest.AddSeeds(f, "../testdata")
		f.Fuzz(func(t *testing.T, b []byte) {
			tp, err := hosts.ParseTopology("f.conf", b, &hosts.Settings{Families: []string{""}})
			if err != nil {
				hoststest.CheckRefusal(t, "f.conf", err)
				return
			}
			hoststest.CheckPlaced(t, tp)
		})
	}
	_ = fuzz
	// Output:
}

// Every example topology hosts keeps parses to a placement CheckPlaced
// accepts.
func TestExamplesPlaced(t *testing.T) {
	for _, name := range []string{"mxs-1515.conf", "galera-haproxy.conf", "rondb-sweep.conf"} {
		tp, err := hosts.ReadTopology("../testdata/"+name, &hosts.Settings{Families: []string{""}})
		if err != nil {
			t.Fatal(err)
		}
		hoststest.CheckPlaced(t, tp)
	}
}
