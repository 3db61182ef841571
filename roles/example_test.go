package roles_test

import (
	"fmt"

	"github.com/hoplat/hoplat/roles"
)

func Example() {
	fmt.Println(roles.OrList(roles.Engines))
	fmt.Println(roles.IsEngine("epoll"), roles.IsEngine("socat"))
	fmt.Println(roles.Path)
	// Output:
	// goroutine, epoll, splice or sockmap
	// true false
	// [client relay server]
}
