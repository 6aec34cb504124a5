/* port.h: the loopback port a measured llama-server listens on. A port is
 * probed before the server is started (bound and released at once, as the
 * server will bind it: 127.0.0.1 with SO_REUSEADDR), so a port another
 * process listens on is a clear error and never a collision with a
 * running service; after the server answers, the listening socket on the
 * port is checked to be the server's own (Linux: /proc/net/tcp and the
 * server's /proc/PID/fd), so a service that took the port in between is
 * never measured in its place. Not for HTTP (serve/client.h). */
#ifndef LVD_SERVE_PORT_H
#define LVD_SERVE_PORT_H

#include "common/util.h"

/* want > 0: that port, which must be free on 127.0.0.1; 0: a free one the
 * kernel picks. *port gets it. 0, or -1 with err ("127.0.0.1:8080 is in use
 * by another process: choose another --port, or none for a free one"). */
int serve_port_pick(int want, int *port, lvd_err *err);

/* Whether the socket listening on 127.0.0.1:port (or on every address) is
 * one of process pid's open files: 1 yes, 0 another process's (or none
 * listens), -1 cannot tell (no /proc). */
int serve_port_owned_by(int port, int pid);

#endif
