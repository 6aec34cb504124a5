/* identity.h: what a probe records of its engine's identity (engine/files.h)
 * and whether a probe still describes the engine's files: the file set key,
 * the backends the files carry (engine/backends.h), the note for a backend
 * that listed no device, the CUDA archs (engine/cudaarch.h) and the flags
 * its tools list (engine/help.h). Used by engine/probe.c; not for running
 * the engine but its tools' --help. */
#ifndef LVD_ENGINE_IDENTITY_H
#define LVD_ENGINE_IDENTITY_H

#include "common/types.h"
#include "common/util.h"
#include "engine/files.h"
#include "store/store.h"

/* Why a probe of engine e no longer describes fs, the engine's files now:
 * compares the file set recorded with cached (when not NULL: the probe the
 * cache would serve) or else with e's newest probe that is not "unknown"
 * (the one the cache would have served). *why gets a malloc'd phrase,
 * "libggml-cpu.so.0 changed since the last probe (mtime)", or NULL when the
 * files are the recorded ones or there is no probe to compare with. 0, or -1
 * with err (the store failed). */
int engine_identity_changed(store *s, const lvd_engine *e, const lvd_probe *cached, const engine_fileset *fs,
                            char **why, lvd_err *err);

/* Completes a fresh probe out of e (devices and backend set): out->files
 * (fs's key), out->backends, out->no_device (for a probe that listed its
 * devices), out->cuda_archs carried over from e's newest probe when out
 * has none and that probe recorded the same files, and out->flags (what e's
 * tools' --help list, engine/help.h) carried over likewise, else read from
 * the tools now (a probe that could not ask the engine records none): the
 * help is read once per identity. 0, or -1 with err. */
int engine_identity_record(store *s, const lvd_engine *e, const engine_fileset *fs, lvd_probe *out,
                           lvd_err *err);

/* engine_identity_record with e's file set listed now (for a probe run
 * outside engine_probe_engine, e.g. by discovery, before store_probe_put). */
int engine_identity_complete(store *s, const lvd_engine *e, lvd_probe *out, lvd_err *err);

#endif
