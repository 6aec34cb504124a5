/* engines.h: the registered engines as lvd-select sees them at service
 * start: each engine with its newest cached probe under the environment
 * a server would be started with, whether that probe still
 * describes the binary on disk (stat only: nothing is spawned), and whether
 * the engine can serve (has llama-server). Shared by the selection's steps
 * (select.h) and the verdict (verdict.c). Not for probing (engine/probe.h). */
#ifndef LVD_SEL_ENGINES_H
#define LVD_SEL_ENGINES_H

#include "common/types.h"
#include "engine/devices.h"
#include "engine/files.h"
#include "common/util.h"
#include "select/heuristic.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

typedef struct sel_engine {
    lvd_engine e;
    lvd_probe probe;       /* newest probe under sel_engines.env; zeroed (id 0) when none */
    int probe_ok;          /* a probe exists, is not "unknown", its binary's
                              mtime and size are what they are now, and so is
                              the engine's file set it recorded (engine/files.h) */
    char *server;          /* DIR/llama-server when it is an executable file, else NULL */
    engine_fileset files;  /* DIR's file set as listed once at load (engine/files.h), which the
                              probe's and the verdict fingerprint's checks both compare */
    int files_listed;      /* 1 when listed; 0 when DIR could not be read (files_err says why) */
    char files_err[sizeof(lvd_err)];
    char why[320];         /* when !probe_ok or !server: why, one line */
} sel_engine;

typedef struct sel_engines {
    sel_engine *v;         /* in the store's order (engine id) */
    size_t n;
    char *env;             /* the device-visibility environment the probes were made under */
} sel_engines;

/* What a rule chose: an engine of a sel_engines and a device of its probe
 * (NULL: the CPU). */
typedef struct sel_pick {
    const sel_engine *eng;
    const lvd_device *dev;
} sel_pick;

/* Loads every registered engine with its newest probe made under the
 * device-visibility environment in force here (engine/visibility.h: what a
 * server started from this environment sees; a probe made under another
 * environment saw other devices and is not used), stats the probed binary
 * and DIR/llama-server. 0, or -1 with err when the store failed. */
int sel_engines_load(store *s, sel_engines *out, lvd_err *err);
/* The same for environment record env (NULL = none set). */
int sel_engines_load_env(store *s, const char *env, sel_engines *out, lvd_err *err);
void sel_engines_free(sel_engines *es);

/* The device-visibility record a server sees when started from environment
 * record base (NULL: this process's) with assignments ("K=V ...", NULL =
 * none) applied, then override's (the profile's env.*, which win). Malloc'd. */
char *sel_env_with(const char *base, const char *assignments, const char *override);
/* 1 when device d (NULL: the CPU, always) sees under es->env the visibility
 * variables its arm was measured with (those of measured_env, an arm's
 * "K=V ..." environment, that d needs); else 0 with why. */
int sel_visibility_holds(const sel_engines *es, const char *measured_env, const lvd_device *d, char *why,
                         size_t len);

/* The engine with this id, or NULL. */
const sel_engine *sel_engines_find(const sel_engines *es, int64_t id);
/* The engine with this name, or NULL. */
const sel_engine *sel_engines_by_name(const sel_engines *es, const char *name);
/* The device of e's probe with exactly this selector, or NULL. */
const lvd_device *sel_engine_device(const sel_engine *e, const char *selector);
/* The device an arm's parameters p run on with engine e: the probe's device
 * with p's selector; without a selector, the probe's first device (what
 * llama.cpp offloads to by default) unless -ngl is 0 or the probe lists none,
 * in which case *out is NULL (the CPU); for a split "A/B" the first device,
 * when the probe lists every one. 0, or -1 (and *out NULL) when p names a
 * selector e's probe does not list. */
int sel_arm_device(const sel_engine *e, const lvd_params *p, const lvd_device **out);
/* 1 when e can be offered for serving: probe_ok and a llama-server. */
int sel_engine_usable(const sel_engine *e);
/* "SEL1, SEL2" (the probe's selectors) or "no devices", into buf. */
void sel_engine_selectors(const sel_engine *e, char *buf, size_t len);

/* A file's mtime (ns) and size, as the probe cache and fingerprints record
 * them. 0, or -1 when it cannot be stat'ed. */
int sel_stat_file(const char *path, int64_t *mtime_ns, int64_t *size);

/* Correctness of (engine, device) for artifact on host, from the newest
 * check: "pass", "fail", "error", "base" (the CPU reference), or "none"
 * when no check was recorded; *reason (may be NULL) gets the check's reason
 * (malloc'd, NULL when none). A CPU arm (device "") is the reference and
 * counts as passed without a check; a split over several devices is
 * checked device by device (store_check_latest). 0, or -1 with err. */
int sel_check_status(store *s, const char *artifact, const char *host, int64_t engine_id,
                     const char *device, char status[8], char **reason, lvd_err *err);
/* 1 when a status from sel_check_status admits the device for the artifact. */
int sel_check_admits(const char *status);

/* Heuristic candidates (select/heuristic.h) over the engines whose probe is
 * ok (and that have a llama-server when need_server): names and backends are
 * borrowed from es, devices copied into devs (room for
 * sel_engines_device_count entries). keep (NULL keeps all) filters: it is
 * asked keep(ctx, e, d) for each probed device, and keep(ctx, e, NULL) for an
 * engine whose probe listed none (a CPU engine). An engine whose devices
 * were all left out is no candidate at all (it is not a CPU engine). cands
 * has room for es->n entries. Returns the number of candidates. */
typedef int (*sel_device_keep)(void *ctx, const sel_engine *e, const lvd_device *d);
size_t sel_engines_candidates(const sel_engines *es, int need_server, sel_device_keep keep,
                              void *ctx, sel_candidate *cands, lvd_device *devs);
/* The number of devices over every engine's probe (to size devs above). */
size_t sel_engines_device_count(const sel_engines *es);

#endif
