package spell_test

import (
	"fmt"

	"github.com/hoplat/hoplat/internal/spell"
)

// An option typed with two letters swapped, and one typed short.
func ExampleNearest() {
	names := []string{"runs", "threads", "time", "trace"}
	fmt.Println(spell.Nearest("tiem", names))
	fmt.Println(spell.Nearest("thread", names))
	// Output:
	// time
	// threads
}
