package mock

import (
	"math/rand/v2"
	"testing"

	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

func TestClientClassicEOF(t *testing.T) {
	m := mysqltest.StartMock(t, NewServer, ServerConfig{User: "u", Password: "p", Rows: 5}, func(s *Server) { s.caps &^= wire.CapDeprecateEOF })
	c := mysqltest.MustDial(t, mysql.Connect, "tcp", m.TCPAddr, mysql.ClientConfig{User: "u", Password: "p", DB: "sbtest"})
	if c.DeprecateEOF() {
		t.Fatal("DEPRECATE_EOF negotiated although the server did not offer it")
	}
	for _, cmd := range mysql.Commands {
		for _, ps := range []bool{false, true} {
			w, err := mysql.NewWorkload(mysql.WorkloadConfig{Command: cmd, PS: ps, Query: "SHOW WARNINGS"})
			var s *mysql.Session
			if err == nil {
				s, err = w.Prepare(c)
			}
			if err == nil {
				_, err = s.Event(rand.New(rand.NewPCG(1, 1)))
				s.Close()
			}
			if err != nil {
				t.Fatalf("%s ps=%v: %v", cmd, ps, err)
			}
		}
	}
	if n, err := c.Query("SELECT @@version_comment LIMIT 1"); err != nil || n != 1 {
		t.Fatalf("version comment: %d rows, %v", n, err)
	}
	if n, err := c.Query("SELECT c FROM sbtest1 WHERE id=7"); err != nil || n != 5 {
		t.Fatalf("reshaped point select: %d rows, %v; want --rows 5", n, err)
	}
	if n, err := c.Query("SELECT id, c FROM sbtest1 WHERE id BETWEEN 3 AND 9"); err != nil || n != 7 {
		t.Fatalf("range select: %d rows, %v; want the table's 7", n, err)
	}
}
