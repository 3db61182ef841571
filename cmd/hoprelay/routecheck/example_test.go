package routecheck

import "fmt"

func Example_parseSysbench() {
	out := `SQL statistics:
    queries performed:
        read:                            0
        write:                           4012
        other:                           2006
        total:                           6018
    transactions:                        1003   (100.27 per sec.)
    queries:                             6018   (601.62 per sec.)
    ignored errors:                      0      (0.00 per sec.)
    reconnects:                          0      (0.00 per sec.)
`
	t, ok := parseSysbench(out)
	fmt.Printf("%+v %v\n", t, ok)
	// Output: {Read:0 Write:4012 Other:2006 Total:6018 Transactions:1003 Errors:0 Reconnects:0} true
}
