package sqlread_test

import (
	"fmt"

	"github.com/hoplat/hoplat/mysql/sqlread"
)

// Example reads sysbench's point select: its class, then its tokens.
func Example() {
	sql := []byte("SELECT c FROM sbtest1 WHERE id = ?")
	fmt.Println(sqlread.Classify(sql).Class == sqlread.ClassTable, sqlread.CountParams(sql))
	var l sqlread.Lexer
	for l.Init(sql); l.Tok.Kind != sqlread.TokEOF; l.Next() {
		fmt.Printf("%s(%d) ", l.Tok.Of(sql), l.Tok.Kind)
	}
	fmt.Println()
	// Output:
	// true 1
	// SELECT(1) c(1) FROM(1) sbtest1(1) WHERE(1) id(1) =(6) ?(5)
}
