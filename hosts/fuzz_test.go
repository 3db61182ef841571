package hosts_test

import (
	"testing"

	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/hosts/hoststest"
)

// FuzzParseTopology is in package hosts_test so that it shares
// hoststest's seeds and checks with driver/settings' FuzzParse.
func FuzzParseTopology(f *testing.F) {
	hoststest.AddSeeds(f, "testdata")
	// Every key hosts does not read is taken, unread, as a program's
	// settings would take it.
	anyKey := &hosts.Settings{Families: []string{""}}
	f.Fuzz(func(t *testing.T, b []byte) {
		tp, err := hosts.ParseTopology("f.conf", b, anyKey)
		if err != nil {
			hoststest.CheckRefusal(t, "f.conf", err)
			return
		}
		hoststest.CheckPlaced(t, tp)
	})
}
