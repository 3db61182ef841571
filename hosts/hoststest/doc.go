// Package hoststest is test support for the packages that read topology
// files (hosts, driver/settings): the fuzz seeds they share and what every
// parsed topology, or every refusal, must hold. It may import hosts; only
// tests import it.
package hoststest
