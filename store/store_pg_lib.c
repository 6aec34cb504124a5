/* store_pg_lib.c: libpq loaded at run time (store_pg_lib.h): dlopen of
 * $LVD_LIBPQ_LIBRARY or libpq.so.5 on the first PostgreSQL store opened,
 * every entry point resolved once; a missing library or symbol is one line
 * saying which package provides it. */
#include "store/store_pg_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

store_pg_lib store_pq;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded; /* 1 when every entry point resolved */

static void load(void)
{
    const char *path = getenv("LVD_LIBPQ_LIBRARY");
    void *lib = dlopen(path && *path ? path : "libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    struct { void **fn; const char *sym; } t[] = {
#define STORE_PG_ENTRY(f) {(void **)&store_pq.p_##f, #f},
        STORE_PG_FUNCS(STORE_PG_ENTRY)
#undef STORE_PG_ENTRY
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(t); i++) {
        *t[i].fn = dlsym(lib, t[i].sym);
        if (!*t[i].fn) {
            dlclose(lib);
            return;
        }
    }
    loaded = 1;
}

int store_pg_load(const char *shown, lvd_err *err)
{
    pthread_once(&once, load);
    if (loaded)
        return 0;
    return lvd_errf(err, "%s: a PostgreSQL store needs libpq.so.5 (Debian package libpq5)", shown);
}
