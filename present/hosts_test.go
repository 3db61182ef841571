package present

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
)

// A topology run's report names its hosts in the text and carries them in
// the JSON, top level and per path; a loopback run's has neither (its
// golden files hold that).
func TestHostsInReport(t *testing.T) {
	r := synthetic()
	r.Hosts = []hop.Host{
		{Name: "app", Kind: "netns", Address: "10.77.0.1", Env: &affinity.Env{Hostname: "vm", Cores: 2}},
		{Name: "db", Kind: "ssh", Address: "172.31.31.222"},
	}
	for i := range r.Paths {
		r.Paths[i].Hosts = &hop.PathHosts{Client: "app", Server: "db"}
		if r.Paths[i].Relay != hop.Direct {
			r.Paths[i].Hosts.Relay = "app"
		}
	}
	var text bytes.Buffer
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	want := "hosts: app (netns 10.77.0.1), db (ssh 172.31.31.222); client on app, relay on app, server on db\n"
	if !strings.HasPrefix(text.String(), want) {
		t.Errorf("text starts %q, want %q", strings.SplitAfter(text.String(), "\n")[0], want)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Hosts []struct {
			Name, Kind, Address string
			Env                 map[string]any
		}
		Paths []struct {
			Relay string
			Hosts map[string]string
		}
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Hosts) != 2 || got.Hosts[1].Address != "172.31.31.222" || got.Hosts[0].Env["cores"] != 2.0 || got.Hosts[1].Env != nil {
		t.Errorf("hosts %+v", got.Hosts)
	}
	for _, p := range got.Paths {
		if p.Hosts["client"] != "app" || p.Hosts["server"] != "db" || (p.Hosts["relay"] == "") != (p.Relay == string(hop.Direct)) {
			t.Errorf("path hosts %+v", p)
		}
	}
}
