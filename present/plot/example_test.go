package plot_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hoplat/hoplat/present/plot"
)

// Added latency per path with its 95% confidence interval, as hopbench
// --out draws it.
func ExampleAdded() {
	bars := []plot.Bar{
		{Name: "epoll tcp->tcp", Value: 37, Lo: 35, Hi: 39},
		{Name: "socat tcp->tcp", Value: 52, Lo: 48, Hi: 56},
	}
	var svg bytes.Buffer
	if err := plot.Added(&svg, "svg", "Added p50 round trip vs direct", "µs", bars); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(svg.String(), "<svg"), strings.Contains(svg.String(), "epoll tcp-&gt;tcp"))
	// Output:
	// true true
}
