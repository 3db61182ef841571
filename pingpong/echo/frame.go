package echo

import (
	"fmt"

	"github.com/hoplat/hoplat/echo/frame"
)

// DefaultSize matches sockperf's default message size, so that the two
// measure the same bytes.
const DefaultSize = 64

// CheckSize validates a frame size given by a user.
func CheckSize(n int) error {
	if n < frame.HeaderLen || n > frame.MaxSize {
		return fmt.Errorf("echo: size %d: want %d to %d bytes", n, frame.HeaderLen, frame.MaxSize)
	}
	return nil
}
