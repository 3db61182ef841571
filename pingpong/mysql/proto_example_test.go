package mysql_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/responder"
	"github.com/hoplat/hoplat/responder/mock"
	"github.com/hoplat/hoplat/sockets"
)

// The mock mysqld behind the responder, and a load-client session
// on it, as pongd and pingpong --proto mysql wire them: each Event is one
// sysbench oltp_read_only transaction of 16 statements.
func ExampleProtocol() {
	dir, _ := os.MkdirTemp("", "mysql-example-")
	defer os.RemoveAll(dir)
	srv, err := mock.NewServer(mock.ServerConfig{User: "sbtest", Password: "sbtest"})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := sockets.Parse("unix:" + filepath.Join(dir, "mysqld.sock"))
	rsp := &responder.Server{Listen: []sockets.Addr{a}, Handler: mock.Handler{Server: srv}}
	if err := rsp.Start(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	defer rsp.Close()

	w, err := mysql.NewWorkload(mysql.WorkloadConfig{Command: mysql.CommandOLTPRO, PS: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := &mysql.Protocol{Client: mysql.ClientConfig{User: "sbtest", Password: "sbtest", DB: "sbtest"}, Workload: w}
	c, err := sockets.Dial(context.Background(), rsp.Addrs()[0])
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	s, err := p.Open(c, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		fmt.Println(s.Event())
	}

	wrong := &mysql.Protocol{Client: mysql.ClientConfig{User: "sbtest", Password: "nope"}, Workload: w}
	c2, _ := sockets.Dial(context.Background(), rsp.Addrs()[0])
	defer c2.Close()
	_, err = wrong.Open(c2, true)
	fmt.Println(err)
	// Output:
	// 16 <nil>
	// 16 <nil>
	// mysql: connect as "sbtest": ERROR 1045 (28000): Access denied for user 'sbtest'@'localhost' (using password: YES)
}
