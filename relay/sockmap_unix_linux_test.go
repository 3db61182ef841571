package relay

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/internal/peer"
)

// TestSockmapUnixLimits pins down, on the running kernel, two of the
// reasons the sockmap engine refuses UNIX legs (see sockmapEngine), so that
// a kernel that lifts them fails this test and the engine can be revisited.
// af_unix stream sockets do join a sockmap (Linux 5.15), but:
//
//   - an af_unix skb belongs to the socket that sent it, so the verdict's
//     bpf_get_socket_cookie names the remote peer: keyed by the relay's own
//     socket, as for TCP, the lookup misses and the bytes are passed up to
//     the relay's socket instead of being redirected;
//   - keyed by the sender instead, bytes queued before the socket joined
//     the map stay one skb behind: each arrival sends the oldest queued skb
//     (unix_stream_read_skb takes one skb per data_ready).
func TestSockmapUnixLimits(t *testing.T) {
	o, err := newSockmapObjs(2)
	if err != nil {
		peer.Unavailable(t, err.Error())
	}
	defer o.close()
	pair := func() (int, int) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
		return fds[0], fds[1]
	}
	cookie := func(fd int) uint64 {
		ck, err := unix.GetsockoptUint64(fd, unix.SOL_SOCKET, unix.SO_COOKIE)
		if err != nil {
			t.Fatal(err)
		}
		return ck
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// join puts the relay's two sockets a (key 0) and b (key 1) in the
	// maps as the engine does, the peers entries keyed by keyA and keyB.
	join := func(a, b int, keyA, keyB uint64) {
		must(o.peers.Update(keyA, peerValue{Peer: 1}, ebpf.UpdateAny))
		must(o.peers.Update(keyB, peerValue{Peer: 0}, ebpf.UpdateAny))
		for k, fd := range []int{a, b} {
			must(o.targets.Update(uint32(k), uint64(fd), ebpf.UpdateAny))
		}
		for k, fd := range []int{a, b} {
			must(o.verdict.Update(uint32(k), uint64(fd), ebpf.UpdateAny))
		}
	}
	read := func(fd int) string {
		buf := make([]byte, 64)
		n, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EAGAIN) {
			return ""
		}
		must(err)
		return string(buf[:n])
	}

	t.Run("cookie-names-the-sender", func(t *testing.T) {
		c, a := pair() // client, relay's client side
		b, u := pair() // relay's upstream side, upstream
		join(a, b, cookie(a), cookie(b))
		defer func() {
			for _, fd := range []int{a, b} {
				o.peers.Delete(cookie(fd))
			}
		}()
		if _, err := unix.Write(c, []byte("x")); err != nil {
			t.Fatal(err)
		}
		// The verdict ran in the sender's write (unix_stream_sendmsg calls
		// data_ready): it is done by now.
		var v peerValue
		must(o.peers.Lookup(cookie(a), &v))
		if got, up := read(a), read(u); v.Bytes != 0 || got != "x" || up != "" {
			t.Fatalf("keyed by the receiving socket: counted %d bytes, relay socket read %q, upstream %q: "+
				"the kernel now names the receiving socket, UNIX legs may work", v.Bytes, got, up)
		}
	})
	t.Run("queued-skb-lags", func(t *testing.T) {
		c, a := pair()
		b, u := pair()
		if _, err := unix.Write(c, []byte("early")); err != nil {
			t.Fatal(err)
		}
		join(a, b, cookie(c), cookie(u))
		defer func() {
			for _, fd := range []int{c, u} {
				o.peers.Delete(cookie(fd))
			}
		}()
		if _, err := unix.Write(c, []byte("late")); err != nil {
			t.Fatal(err)
		}
		// The redirected skb is sent by a kernel worker: wait for it.
		pfd := []unix.PollFd{{Fd: int32(u), Events: unix.POLLIN}}
		if n, err := unix.Poll(pfd, 10000); n != 1 || err != nil {
			t.Fatalf("upstream never readable: %d, %v", n, err)
		}
		// late's own data_ready (done within the write) sent early: late
		// itself is still queued on the relay's socket.
		inq, err := unix.IoctlGetInt(a, unix.SIOCINQ)
		must(err)
		if got := read(u); got != "early" || inq != len("late") {
			t.Fatalf("upstream read %q, %d bytes still queued, after early+late; want early, 4 (late one skb behind): "+
				"the kernel now drains the queue, UNIX legs may work", got, inq)
		}
	})
}
