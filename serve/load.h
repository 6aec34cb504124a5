/* load.h: the load shape of a serving measurement, N:P:G: N concurrent
 * clients on a llama-server at -np N, each sending a prompt of P tokens and
 * streaming G generated tokens, request after request. Parsed from lvd
 * serve's --load and the nightly's `serve = ...` alike. Not for running
 * anything (serve/run.h). */
#ifndef LVD_SERVE_LOAD_H
#define LVD_SERVE_LOAD_H

#include "common/util.h"

#include <stddef.h>

#define SERVE_MAX_CLIENTS 256
#define SERVE_MAX_TOKENS 65536
#define SERVE_MAX_LOADS 16

typedef struct serve_load {
    int clients;     /* N: concurrent clients, and the server's -np */
    int n_prompt;    /* P */
    int n_gen;       /* G */
} serve_load;

/* Parses "N:P:G[,N:P:G...]" (N 1 to SERVE_MAX_CLIENTS, P and G 1 to
 * SERVE_MAX_TOKENS, at most SERVE_MAX_LOADS shapes, none twice) into
 * *loads (malloc'd). 0, or -1 with err naming the word and what is wrong
 * ("load '0:128:32': N must be 1 to 256 clients"). */
int serve_loads_parse(const char *s, serve_load **loads, size_t *n, lvd_err *err);

/* "4:128:32". */
void serve_load_name(const serve_load *l, char *buf, size_t len);

#endif
