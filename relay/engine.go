package relay

import (
	"strings"

	"github.com/hoplat/hoplat/roles"
)

// Engines lists every Engine, in the order help texts name them: roles'
// engine table, the one that hoprelay's --engine and hopbench's --paths help
// are written from.
var Engines = engines()

func engines() []Engine {
	out := make([]Engine, len(roles.Engines))
	for i, e := range roles.Engines {
		out[i] = Engine(e)
	}
	return out
}

// EngineNames is "goroutine, epoll, splice or sockmap": the Engines for an
// error.
func EngineNames() string { return roles.OrList(Engines) }

// EngineList is the Engines' names joined by sep, for a help text:
// EngineList("|") is "goroutine|epoll|splice|sockmap".
func EngineList(sep string) string { return strings.Join(roles.Names(Engines), sep) }
