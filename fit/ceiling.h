/* ceiling.h: what a context ceiling means once measured (man lvd-fit, "lvd
 * fit"), for lvd fit, lvd select and the evidence page alike: the
 * placement a ceiling is measured and served at, the identity that makes a
 * recorded ceiling stale, the margin lvd select --ctx max keeps below it,
 * and the placement's own prediction of it. One function per rule. Not for
 * measuring (fit/fit.h) nor SQL (store/). */
#ifndef LVD_FIT_CEILING_H
#define LVD_FIT_CEILING_H

#include "common/gguf.h"
#include "common/types.h"
#include "common/util.h"
#include "placement/placement.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* lvd select --ctx max serves the ceiling less this percent (free memory
 * moves between the fit and the service start; the search is exact to 1 %),
 * rounded down to a multiple of FIT_SERVE_ROUND (llama.cpp's KV padding). */
#define FIT_MARGIN_PCT 5
#define FIT_SERVE_ROUND 256
/* The device name a CPU run is recorded under. */
#define FIT_DEVICE_CPU "CPU"

/* The placement flags of a run as recorded ("ngl=33 ncmoe=0 ub=512"; "cpu"
 * for a CPU run: cpu_run set), the key a ceiling is valid for. */
void fit_placement_key(const lvd_params *p, int cpu_run, char *buf, size_t len);

/* The identity of an engine a ceiling is valid for: its build and the file
 * set its probe recorded (engine/files.h). Malloc'd. */
char *fit_engine_key(const lvd_engine *e, const lvd_probe *probe);

/* The rule of staleness: 1 when ceiling c still holds for engine e (as
 * probed now) at placement key `placement` (the model is the artifact it was
 * looked up by); else 0 with why ("the engine changed since lvd fit",
 * "measured at ngl=33 ..., the placement is now ngl=20 ..."). */
int fit_ceiling_fresh(const store_ceiling *c, const lvd_engine *e, const lvd_probe *probe,
                      const char *placement, char *why, size_t len);

/* The context lvd select --ctx max serves under ceiling c: the ceiling less
 * FIT_MARGIN_PCT, rounded down to FIT_SERVE_ROUND (never below it unless the
 * ceiling is); a capped ceiling (the top loaded) is served as measured. */
uint32_t fit_serve_ctx(const store_ceiling *c);

/* The placement lvd select would use for a run on device dev (NULL: the
 * CPU) of a model of this shape with KV types type_k/type_v: placement at
 * the default context (placement/placement.h) from the device's free memory
 * applied to *p (device, ngl, n_cpu_moe, ubatch, types). 1 when it placed
 * (*pl filled), 0 when it could not (CPU, or free memory unknown: the flags
 * are left to llama.cpp), -1 with err when placement failed. */
int fit_place(const gguf_shape *shape, const lvd_device *dev, const char *type_k, const char *type_v,
              lvd_params *p, placement_result *pl, lvd_err *err);

/* The largest context placement predicts fits on the device at placement pl
 * (its ngl, n_cpu_moe, ubatch; free_mib the device's): -1 when unknown (no
 * placement), 0 when not even FIT_MIN_CTX does. */
int64_t fit_predict_max(const gguf_shape *shape, const placement_result *pl, const char *type_k,
                        const char *type_v, int64_t free_mib);

#endif
