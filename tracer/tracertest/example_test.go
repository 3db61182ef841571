package tracertest_test

import (
	"fmt"

	"github.com/hoplat/hoplat/tracer/tracertest"
)

func ExampleCheckWaterfall() {
	ok := `{"traceEvents":[
	{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"epoll p50 · relay"}},
	{"name":"thread_name","ph":"M","pid":1,"tid":7,"args":{"name":"tid 7"}},
	{"name":"user","ph":"X","ts":0,"dur":3,"pid":1,"tid":7},
	{"name":"kernel","ph":"X","ts":3,"dur":2,"pid":1,"tid":7}]}`
	slices, flows, err := tracertest.CheckWaterfall([]byte(ok))
	fmt.Println(slices, flows, err)
	open := `{"traceEvents":[{"name":"user","ph":"X","ts":0,"pid":1,"tid":7}]}`
	_, _, err = tracertest.CheckWaterfall([]byte(open))
	fmt.Println(err)
	// Output:
	// 2 0 <nil>
	// tracertest: slice "user" at 0 on {1 7} not closed (dur <nil>)
}
