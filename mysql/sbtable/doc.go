// Package sbtable models the tables `sysbench prepare` creates — sbtest1..N,
// each (id INT PRIMARY KEY AUTO_INCREMENT, k INT with an index, c CHAR(120),
// pad CHAR(60)) holding ids 1..size — without storing them: every value is a
// pure function of a seed, the table number and the id, so a table of a
// million rows costs nothing and two runs with the same seed agree.
//
// It is a leaf: it imports only the standard library.
package sbtable
