"""Serving the app as a process: several workers on one port, the HTTP protocol that answers
an unparsable request in the service's shape, loopback-only without keys, and the startup
heap parked out of the garbage collector's way."""
