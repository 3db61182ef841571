package cli_test

import (
	"errors"
	"fmt"

	"github.com/hoplat/hoplat/internal/cli"
)

func ExampleIsUsage() {
	err := fmt.Errorf("--io: %w", cli.Usage(errors.New(`unknown model "fast"`)))
	fmt.Println(cli.IsUsage(err), cli.IsUsage(errors.New("connection refused")))
	// Output: true false
}
