/* registration.h: the one rule for "register a directory, then probe it":
 * engine_register, then the engine's probe recorded against it (the store's
 * cached probe or a fresh one, or one the caller already ran), with what
 * happened in one result and nothing printed. Used by `lvd fetch --register`
 * and by discovery (fetch/discover.h). Not for the registration checks
 * themselves (engine/register.h) nor for probing (engine/probe.h). */
#ifndef LVD_ENGINE_REGISTRATION_H
#define LVD_ENGINE_REGISTRATION_H

#include "common/types.h"
#include "common/util.h"
#include "engine/register.h"
#include "store/store.h"

struct cJSON;

/* What engine_register_probe did. */
typedef struct engine_registration {
    lvd_engine engine;   /* the engine, when registered */
    lvd_probe probe;     /* its probe, when probed */
    int registered;      /* engine_register succeeded: the engine is in the store */
    int probed;          /* a probe is recorded for the engine (and in probe) */
    int cached;          /* the probe is the store's cached one: no process ran */
    int exit_code;       /* enum lvd_exit: OK; PARTIAL: the probe says "unknown";
                            STORE: registered, but the probe could not be recorded;
                            else engine_register's failure */
    lvd_err err;         /* why, when neither OK nor PARTIAL */
} engine_registration;

/* Registers o (engine_register), then, unless no_probe, records the engine's
 * probe: ran when it is not NULL (a probe the caller already ran on o->dir,
 * engine_probe_run: discovery names an engine after its backend before it
 * registers it), moved into r->probe (ran is zeroed) and recorded as it is
 * with the engine's id and the time; else engine_probe_engine_ex (the
 * store's cached probe when fresh, else --list-devices, o->timeout_ms).
 * With ran given, r->probe holds it afterwards whatever happened. Fills r
 * (free with engine_registration_free). Returns r->exit_code. */
int engine_register_probe(store *s, const engine_register_opts *o, int no_probe, lvd_probe *ran,
                          engine_registration *r);
void engine_registration_free(engine_registration *r);

/* {"engine": engine_json, "probe": engine_probe_json or null}: what
 * `lvd fetch --register --json` prints. Caller owns it; r must be registered. */
struct cJSON *engine_registration_json(const engine_registration *r);

#endif
