package mock_test

import (
	"fmt"

	"github.com/hoplat/hoplat/responder/mock"
)

// ExampleNewServer shows the defaults a zero ServerConfig gets: one
// sbtest1 of 10000 rows, as sysbench prepares it, behind
// mysql_native_password.
func ExampleNewServer() {
	srv, err := mock.NewServer(mock.ServerConfig{User: "bench", Password: "secret"})
	if err != nil {
		panic(err)
	}
	cfg := srv.Config()
	fmt.Println(cfg.Tables, cfg.TableSize, cfg.Auth, cfg.Version)
	// Output: 1 10000 mysql_native_password 8.0.36-hoplat
}
