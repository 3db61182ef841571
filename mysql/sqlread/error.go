package sqlread

import (
	"fmt"

	"github.com/hoplat/hoplat/mysql/wire"
)

// SyntaxError is mysqld's ER_PARSE_ERROR for the text from near on: it
// quotes what follows the first token it could not take, up to 80 bytes.
func SyntaxError(near []byte) *wire.ServerError {
	if len(near) > 80 {
		near = near[:80]
	}
	return &wire.ServerError{Code: wire.ErParse, State: "42000", Message: fmt.Sprintf(
		"You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s' at line 1", near)}
}
