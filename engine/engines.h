/* engines.h: the engines a bench or check session works on: chosen by name
 * (or id) from the store, never by a path a caller supplies, and probed
 * (cached answers served). Shared by lvd-bench and lvd-check. Not for
 * registering engines (lvd fetch --register) or parsing device lists. */
#ifndef LVD_ENGINE_ENGINES_H
#define LVD_ENGINE_ENGINES_H

#include "common/types.h"
#include "common/util.h"
#include "store/store.h"

#include <stddef.h>

/* The engine a user named: by name first, then by numeric id. 0, 1 (none)
 * or -1 (store error). */
int engine_find(store *s, const char *name, lvd_engine *out, lvd_err *err);

/* Loads the engines named in spec ("all", NULL or "" = every registered
 * engine; else "NAME,NAME2,ID") into *v (free with store_engine_list_free).
 * Returns 0; 1 when an engine is not registered or none is (err names it);
 * -1 when the store failed. */
int engine_list_select(store *s, const char *spec, lvd_engine **v, size_t *n, lvd_err *err);

/* Probes engines[0..n) (engine_probe_engine, cache allowed) into *probes
 * (n entries, free each with lvd_probe_free, then the array). An engine that
 * could not be asked gets an "unknown" probe with its reason. 0, or -1 when
 * the store failed. */
int engine_list_probe(store *s, const lvd_engine *engines, size_t n, lvd_probe **probes,
                        lvd_err *err);
void engine_probes_free(lvd_probe *probes, size_t n);

/* What lvd bench and lvd check start from. */
typedef struct engine_setup {
    store *s;
    store_artifact art;   /* the model, identified */
    char *model;          /* the path engines load: a split model's first shard */
    lvd_engine *engines;  /* the engines named, each with its probe */
    lvd_probe *probes;
    size_t n;
} engine_setup;

/* Opens the store a tool was given (store_opt, see store_default_path;
 * created if missing), identifies model in it, then loads the engines named
 * in spec (engine_list_select) and probes them. An exit code: LVD_EXIT_OK,
 * or, with the error printed as tool's, LVD_EXIT_STORE, LVD_EXIT_INPUT (the
 * model) or LVD_EXIT_FAIL (no such engine). Free with engine_setup_free
 * either way. */
int engine_setup_open(const char *tool, const char *store_opt, const char *model, const char *spec,
                     engine_setup *out);
void engine_setup_free(engine_setup *b);

#endif
