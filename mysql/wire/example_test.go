package wire_test

import (
	"encoding/hex"
	"fmt"

	"github.com/hoplat/hoplat/mysql/wire"
)

// Example decodes the column definition MariaDB sends for SELECT 1.
func Example() {
	b, _ := hex.DecodeString("0364656600000001310" + "00c3f000100000003810000" + "0000")
	c, err := wire.ParseColumnDef(b)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: type %#x, length %d, flags %#x\n", c.Name, c.ColType, c.Length, c.Flags)
	// Output: 1: type 0x3, length 1, flags 0x81
}
