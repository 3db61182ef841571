package tracer

import (
	"errors"
	"slices"
	"strings"

	"github.com/hoplat/hoplat/roles"
)

// Config says what to trace and how requests are found in it. Open takes
// it to set the kernel's filters, Assemble to name what it finds. The zero
// value traces nothing; a useful one names at least the client.
type Config struct {
	// Components maps a followed process (tgid) to the component it is on
	// the path: "client", "relay", "server". Every thread of the process is
	// followed. A component whose name starts with "relay" is a relay in a
	// Split (so a chain may say relay1, relay2); the others are endpoints.
	Components map[int]string
	// Threads maps extra threads (tid) to a component: kernel threads that
	// carry a component's work, as the kworkers that run a sockmap relay's
	// redirects or ksoftirqd. Their time counts as kernel time.
	Threads map[int]string
	// WithoutSyscalls names components whose system calls are not
	// recorded: their time on CPU is all SegUser (so an endpoint's time
	// still counts whole in endpoints), their sends are not legs, and the
	// path carries fewer records (a Go server makes a handful of system
	// calls per request). The client's are needed to find requests.
	WithoutSyscalls []string
	// CPUs are the CPUs whose idle states and softirqs are recorded; nil
	// means every CPU.
	CPUs []int
	// Client is the component whose system calls delimit requests: a
	// request runs from the entry of a send (write, writev, sendto,
	// sendmsg) on one fd to the return of the last receive (read, readv,
	// recvfrom, recvmsg) on that fd that returned bytes before the next
	// send. "" means "client".
	Client string
	// ChargeHolder charges each stretch of a request to whoever held the
	// client's CPU then, instead of walking the request's critical path
	// back through its wake-ups: DESIGN.md's "who holds the CPU is who
	// costs", the view for components that share one CPU (the packed
	// regime). A component waiting runnable behind the relay is the
	// relay's time, the CPU idle is idle_exit, a task the trace does not
	// follow is runnable behind it; a relay's system calls are all its
	// own kernel time (no legs), an endpoint's send is a leg up to the
	// wake-up it made. The relay's parts of such a split are its time on
	// CPU during the request, as schedstat counts it. With several client
	// threads each request's window holds the others' work too.
	ChargeHolder bool
	// BufferBytes is the size of the record buffer, shared equally by
	// the CPUs (at least 65,536 records each); 0 means 64 MiB, about
	// 1,400,000 records. It is read when a window stops, not during it,
	// so it must hold a whole window's records.
	BufferBytes int
	// Hooks chooses the tracepoints: RequestHooks (the zero value) for a
	// path's requests, ProxyHooks for a proxy attached to as it runs.
	Hooks Hooks
	// MaxEvents bounds the records a Trace keeps; the rest are counted as
	// dropped. 0 means 1<<21 (96 MiB of Events).
	MaxEvents int
}

// Hooks is a set of tracepoints the tracer loads.
type Hooks int

const (
	// RequestHooks follow requests through the followed processes:
	// sched_switch, sched_waking, sched_wakeup_new, sched_migrate_task,
	// sys_enter/exit, softirq_entry/exit and cpu_idle on the CPUs of the
	// set.
	RequestHooks Hooks = iota
	// ProxyHooks follow the bytes through an attached proxy, and nothing
	// else: sched_switch, sched_waking, the softirqs that interrupt a
	// followed task, sched_process_fork (a followed process's children are
	// followed by the kernel as they appear), sock_recv_length and
	// sock_send_length on the followed tasks' TCP sockets, and
	// sk_data_ready on the sockets those have touched (KindDataReady).
	ProxyHooks
)

// Defaults of Config's zero fields.
const (
	DefaultBufferBytes = 64 << 20
	DefaultMaxEvents   = 1 << 21
)

func (c *Config) syscalls(component string) bool {
	return !slices.Contains(c.WithoutSyscalls, component)
}

func (c *Config) client() string {
	if c.Client == "" {
		return roles.Client
	}
	return c.Client
}

// IsRelay reports whether a component is a relay for a Split: its name
// starts with "relay".
func IsRelay(component string) bool { return strings.HasPrefix(component, roles.Relay) }

// The tracer's failures that mean it cannot run here, so the caller should
// fall back to another method and print why. Each wraps
// errors.ErrUnsupported, and the error Open returns wraps one of them with
// the kernel's own answer.
var (
	// ErrNoBTF: the kernel has no BTF (/sys/kernel/btf/vmlinux), which
	// tp_btf programs need.
	ErrNoBTF error = unsupported("tracer: the kernel has no BTF (/sys/kernel/btf/vmlinux)")
	// ErrNoCapability: bpf(2) refused the programs (EPERM, EACCES): the
	// tracer needs root, or CAP_BPF with CAP_PERFMON.
	ErrNoCapability error = unsupported("tracer: needs root or CAP_BPF and CAP_PERFMON")
	// ErrKernel: the kernel lacks something the programs need (a
	// tracepoint, ring buffers, BTF-typed tracing programs).
	ErrKernel error = unsupported("tracer: the kernel cannot run the tracing programs")
)

// unsupported is a sentinel that is also errors.ErrUnsupported, with a
// message of its own.
type unsupported string

func (u unsupported) Error() string        { return string(u) }
func (u unsupported) Is(target error) bool { return target == errors.ErrUnsupported }
