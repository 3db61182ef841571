// Package mock is an embedded mysqld for hoplat's ping-pong: a Server that
// logs clients in (mysql_native_password, caching_sha2_password), holds
// sysbench's tables computed from a seed (package sbtable) and answers what
// sysbench, drivers and monitors send with the result sets, OK packets and
// errors MariaDB or MySQL gives; Handler plugs it into package responder.
// Every statement, text or prepared, is read through package sqlread. It
// imports wire, sqlread, sbtable and the standard library, never the client.
package mock
