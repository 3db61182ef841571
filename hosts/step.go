package hosts

// StepKind is what a Step did.
type StepKind int

// The steps Up, Binary and Close take, each with the Step fields it sets.
const (
	// NetNSAdded: Host's namespace Namespace was made (a bridge's too,
	// with Host the bridge's name).
	NetNSAdded StepKind = iota + 1
	// AddressSet: Address is on Interface in Host's namespace Namespace,
	// which is up.
	AddressSet
	// StaleNetNSRemoved: a killed run's namespace Namespace was deleted.
	StaleNetNSRemoved
	// StaleTempDirRemoved: a killed run's local temp dir Path was removed
	// (its ssh masters told to exit).
	StaleTempDirRemoved
	// StaleNotRemoved: what killed runs left could not all be removed
	// (Err); the run goes on, since it may make no namespaces.
	StaleNotRemoved
	// SSHConnecting: ssh host Host's master connection to Dest (its
	// destination, user@host[:port]) is being opened.
	SSHConnecting
	// SSHReady: ssh host Host is connected; it runs GOOS/GOARCH and has
	// the temp dir Path.
	SSHReady
	// SSHStaleRemoved: a killed run's temp dir Path on ssh host Host was
	// removed, its processes killed.
	SSHStaleRemoved
	// BinaryShipped: the local file Local was copied to Path on ssh host
	// Host.
	BinaryShipped
	// CloseProcess: Close stops, if it still runs, the process Start
	// started on Host (Process, its Command.Name).
	CloseProcess
	// CloseNetNS: Close deletes namespace Namespace.
	CloseNetNS
	// CloseSSH: Close closes ssh host Host's master connection.
	CloseSSH
	// CloseRemoteDir: Close removes the temp dir Path on ssh host Host.
	CloseRemoteDir
	// CloseTempDir: Close removes the local temp dir Path.
	CloseTempDir
)

// Step is one thing Up, Testbed.Binary or Testbed.Close did to the
// machine or a host, for the caller's progress (Options.Steps): its
// Kind and the fields that Kind names, the others zero. Package present
// says it to a person.
type Step struct {
	Kind      StepKind
	Host      string // the topology's name for the host
	Namespace string // a namespace's name, hoplat-<pid>-<NAME>
	Interface string // an interface in Namespace
	Address   string // Interface's address, without its prefix length
	Dest      string // an ssh host's destination
	GOOS      string // an ssh host's operating system, as Go names it
	GOARCH    string // and its architecture
	Local     string // a file on this machine
	Process   string // a process's Command.Name
	Path      string // a directory or file, on Host when it is an ssh host
	Err       error
}

// step hands s to Options.Steps, if set.
func (tb *Testbed) step(s Step) {
	if tb.opt.Steps != nil {
		tb.opt.Steps(s)
	}
}
