package mariadbtest_test

import (
	"fmt"
	"strings"

	"github.com/hoplat/hoplat/internal/mariadbtest"
)

func ExampleServer_SysbenchArgs() {
	s := &mariadbtest.Server{Addr: "127.0.0.1:3306", Socket: "/tmp/m/mysqld.sock", User: "bench", Password: "pw", DB: "sbtest"}
	fmt.Println(strings.Join(s.SysbenchArgs(false), " "))
	fmt.Println(strings.Join(s.SysbenchArgs(true), " "))
	// Output:
	// --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3306 --mysql-user=bench --mysql-password=pw --mysql-db=sbtest
	// --db-driver=mysql --mysql-socket=/tmp/m/mysqld.sock --mysql-user=bench --mysql-password=pw --mysql-db=sbtest
}
