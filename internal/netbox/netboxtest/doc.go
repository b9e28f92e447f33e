// Package netboxtest gives tests the real NetBox they run against, named by
// the environment:
//
//	IPSYNC_NETBOX_URL, IPSYNC_NETBOX_TOKEN   a NetBox 4.7
//
// (scripts/netbox-up.sh start prints the URL; `token` prints the token.)
// Without them a test that asks for the server is skipped, saying so.
//
// The server is emptied of what ipsync or a test may have made before and
// after each test, keeping the data the script seeds (Seed), so tests never
// see each other's leftovers. Tests reach it through a counting proxy, so
// that they can assert how many requests of a method and path were sent;
// what the harness itself reads or deletes is not counted.
//
// Every test shares the one server: packages using it must not run their
// tests in parallel with each other (go test -p 1).
//
// The package's own tests are the server facts ipsync's NetBox target
// relies on, each asserted against the real server.
package netboxtest
