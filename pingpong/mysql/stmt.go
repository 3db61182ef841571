package mysql

import (
	"encoding/binary"
	"fmt"

	"github.com/hoplat/hoplat/mysql/wire"
)

// Stmt is a server-side prepared statement on one Client.
type Stmt struct {
	c       *Client
	id      uint32
	params  int
	columns int
}

// Prepare sends COM_STMT_PREPARE and reads the statement's parameter and
// column definitions.
func (c *Client) Prepare(sql string) (*Stmt, error) {
	c.pc.ResetSeq()
	b := append(c.pc.Begin(), wire.ComStmtPrepare)
	c.pc.End(append(b, sql...))
	if err := c.pc.Flush(); err != nil {
		return nil, fmt.Errorf("mysql: prepare: %w", err)
	}
	p, err := c.pc.ReadPacket()
	if err != nil {
		return nil, fmt.Errorf("mysql: prepare: %w", err)
	}
	if len(p) > 0 && p[0] == wire.HeaderErr {
		return nil, wire.ParseErr(p)
	}
	ok, err := wire.ParseStmtPrepareOK(p)
	if err != nil {
		return nil, err
	}
	// Parameter definitions, then column definitions, each block followed
	// by an EOF unless DEPRECATE_EOF is on. MariaDB describes parameters as
	// type NULL, so they are read only for framing.
	for _, n := range [2]int{int(ok.Params), int(ok.Columns)} {
		if n == 0 {
			continue
		}
		for range n {
			p, err := c.pc.ReadPacket()
			if err != nil {
				return nil, fmt.Errorf("mysql: prepare: %w", err)
			}
			if _, err := wire.ParseColumnDef(p); err != nil {
				return nil, err
			}
		}
		if !c.deprecateEOF {
			p, err := c.pc.ReadPacket()
			if err != nil {
				return nil, fmt.Errorf("mysql: prepare: %w", err)
			}
			if _, err := wire.ParseEOF(p); err != nil {
				return nil, err
			}
		}
	}
	return &Stmt{c: c, id: ok.Id, params: int(ok.Params), columns: int(ok.Columns)}, nil
}

// Params is the number of placeholders the server counted.
func (s *Stmt) Params() int { return s.params }

// Exec runs the statement with COM_STMT_EXECUTE, binding args as signed
// 64-bit integers, and reads the binary result set, returning its row count.
func (s *Stmt) Exec(args ...int64) (rows int, err error) {
	b, err := s.beginExecute(len(args))
	if err != nil {
		return 0, err
	}
	for range args {
		b = append(b, wire.TypeLongLong, 0)
	}
	for _, a := range args {
		b = binary.LittleEndian.AppendUint64(b, uint64(a))
	}
	s.c.pc.End(b)
	return s.c.roundTrip(true)
}

// beginExecute opens a COM_STMT_EXECUTE packet for n parameters, up to
// where the caller appends their types and values: with n above zero it
// ends in the new-params-bound flag. Types are sent on every execution: a
// server may forget them after COM_STMT_RESET, and eight bytes per request
// cost nothing.
func (s *Stmt) beginExecute(n int) ([]byte, error) {
	if n != s.params {
		return nil, fmt.Errorf("mysql: execute statement %d: %d arguments for %d parameters", s.id, n, s.params)
	}
	s.c.pc.ResetSeq()
	b := append(s.c.pc.Begin(), wire.ComStmtExecute)
	b = binary.LittleEndian.AppendUint32(b, s.id)
	b = append(b, 0)          // flags: no cursor
	b = append(b, 1, 0, 0, 0) // iteration count
	if n > 0 {
		for range (n + 7) / 8 {
			b = append(b, 0) // NULL bitmap: none
		}
		b = append(b, 1)
	}
	return b, nil
}

// Close sends COM_STMT_CLOSE, which has no reply.
func (s *Stmt) Close() error {
	c := s.c
	c.pc.ResetSeq()
	b := append(c.pc.Begin(), wire.ComStmtClose)
	c.pc.End(binary.LittleEndian.AppendUint32(b, s.id))
	if err := c.pc.Flush(); err != nil {
		return fmt.Errorf("mysql: close statement %d: %w", s.id, err)
	}
	return nil
}

// bindValue is one parameter of execValues: an integer, or when str is
// non-nil a CHAR value, bound as sysbench binds them (INT and CHAR).
type bindValue struct {
	i   int64
	str []byte
}

func intValue(i int64) bindValue   { return bindValue{i: i} }
func charValue(b []byte) bindValue { return bindValue{str: b} }

// execValues is Exec for integers and strings together: sysbench's
// UPDATE … SET c=? and INSERT bind CHAR values as MYSQL_TYPE_STRING.
func (s *Stmt) execValues(vals []bindValue) (rows int, err error) {
	b, err := s.beginExecute(len(vals))
	if err != nil {
		return 0, err
	}
	for _, v := range vals {
		if v.str != nil {
			b = append(b, wire.TypeString, 0)
		} else {
			b = append(b, wire.TypeLongLong, 0)
		}
	}
	for _, v := range vals {
		if v.str != nil {
			b = wire.AppendLenEncBytes(b, v.str)
		} else {
			b = binary.LittleEndian.AppendUint64(b, uint64(v.i))
		}
	}
	s.c.pc.End(b)
	return s.c.roundTrip(true)
}
