package mysql_test

import (
	"fmt"
	"math/rand/v2"
	"net"

	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/responder/mock"
)

// A mock mysqld and a client over a loopback connection: the client logs
// in, runs sysbench's point select as a prepared statement, a range select
// on the mock's sbtest1 (10000 rows, as sysbench prepares it) and quits.
func Example() {
	srv, err := mock.NewServer(mock.ServerConfig{User: "bench", Password: "secret"})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		served <- srv.ServeConn(c)
	}()

	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		panic(err)
	}
	defer nc.Close()
	client, err := mysql.Connect(nc, mysql.ClientConfig{User: "bench", Password: "secret", DB: "sbtest"}, false)
	if err != nil {
		panic(err)
	}
	w, err := mysql.NewWorkload(mysql.WorkloadConfig{Command: mysql.CommandPointSelect, PS: true})
	if err != nil {
		panic(err)
	}
	session, err := w.Prepare(client)
	if err != nil {
		panic(err)
	}
	queries, err := session.Event(rand.New(rand.NewPCG(1, 2)))
	fmt.Println("queries:", queries, "error:", err)
	rows, err := client.Query("SELECT c FROM sbtest1 WHERE id BETWEEN 1 AND 100")
	fmt.Println("rows:", rows, "error:", err)

	session.Close()
	client.Quit()
	fmt.Println("server:", <-served)
	// Output:
	// queries: 1 error: <nil>
	// rows: 100 error: <nil>
	// server: <nil>
}
