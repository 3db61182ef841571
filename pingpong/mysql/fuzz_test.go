package mysql

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/internal/wiretest"
	"github.com/hoplat/hoplat/mysql/wire"
)

func FuzzClient(f *testing.F) {
	w := wire.NewPacketConn(nil)
	w.WritePacket(wiretest.Unhex(f, wiretest.CapturedGreeting))
	w.WritePacket(wiretest.Unhex(f, "00 00 00 0200 0000"))
	w.ResetSeq()
	w.Seq = 1
	for _, p := range []string{"01", "03646566 00 00 00 01 31 00 0c 3f00 01000000 03 8100 00 0000", "01 31", "fe 00 00 0200 0000"} {
		w.WritePacket(wiretest.Unhex(f, p))
	}
	f.Add(w.Wbuf)
	f.Fuzz(func(t *testing.T, in []byte) {
		rw := wiretest.NewPipe(in)
		c, err := Connect(rw, ClientConfig{User: "u", Password: "hunter2", MaxMessage: 1 << 20}, len(in)%2 == 0)
		if err != nil {
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("error reveals the password: %v", err)
			}
			return
		}
		c.Query("SELECT 1")
		c.colTypes = append(c.colTypes[:0], wire.TypeLong)
		st := &Stmt{c: c, id: 1, params: 1}
		st.Exec(1)
	})
}
