package relay_test

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/sockets"
)

// The help texts' list of engines is the table, and an engine missing from
// the table is refused by name.
func TestEngineList(t *testing.T) {
	if got, want := relay.EngineList("|"), "goroutine|epoll|splice|sockmap"; got != want {
		t.Errorf("EngineList(|) = %q, want %q", got, want)
	}
	if got, want := relay.EngineNames(), "goroutine, epoll, splice or sockmap"; got != want {
		t.Errorf("EngineNames() = %q, want %q", got, want)
	}
	_, err := relay.New(sockets.Addr{}, sockets.Addr{}, relay.Config{Engine: "uring"})
	if err == nil || !strings.Contains(err.Error(), `engine "uring": want `+relay.EngineNames()) {
		t.Errorf("engine uring: %v, want a refusal naming the engines", err)
	}
}
