package sockets

import (
	"errors"
	"io"
)

// ErrAborted is what a wait returns when its abort descriptor polls
// readable (Polled, FD.Poll): the owner is shutting down.
var ErrAborted = errors.New("sockets: wait aborted")

// Copy is the byte copier every copy loop of a relay goes through: it moves
// src to dst through buf, one chunk at a time, each written whole before
// the next read, until src ends. It never hands the stream to a ReaderFrom
// or WriterTo (splice(2)), so every chunk passes through buf and is told to
// chunk, if not nil, once written; chunk returning false stops the copy
// there, the rest of the stream left to the caller.
//
// ended is true when src reached its end (io.EOF, which is not an error);
// err is the first read or write error. A read that returns bytes and an
// error has its bytes written first, as io.Reader asks. Interrupted system
// calls are the readers' and writers' to retry: Go's net.Conn does, and so
// does Polled, through FD.
func Copy(dst io.Writer, src io.Reader, buf []byte, chunk func(n int) bool) (ended bool, err error) {
	for {
		n, rerr := src.Read(buf)
		more := true
		if n > 0 {
			if _, err := dst.Write(buf[:n]); err != nil {
				return false, err
			}
			if chunk != nil {
				more = chunk(n)
			}
		}
		switch {
		case rerr == io.EOF:
			return true, nil
		case rerr != nil:
			return false, rerr
		case !more:
			return false, nil
		}
	}
}
