/* probe.h: asking an engine which devices it sees (`--list-devices`), and
 * caching the answer in the store against the engine's file set (engine/files.h).
 * Not for parsing the output (engine/devices.h) nor for choosing a device
 * (select/). */
#ifndef LVD_ENGINE_PROBE_H
#define LVD_ENGINE_PROBE_H

#include "common/types.h"
#include "common/util.h"
#include "store/store.h"

#include <stdio.h>

struct cJSON;

/* A cached probe is served for 24 h: devices do not come and go between
 * nightly runs, and a changed engine file (engine/files.h: size, mtime or
 * inode of a launcher, library or module; one added or gone) invalidates it
 * at once. */
#define ENGINE_PROBE_TTL_S (24 * 3600)
/* `--list-devices` initialises every backend; a healthy CUDA or Vulkan build
 * answers in a few seconds, so 30 s only ever catches a hung driver. */
#define ENGINE_PROBE_TIMEOUT_S 30
#define ENGINE_PROBE_TIMEOUT_MS (ENGINE_PROBE_TIMEOUT_S * 1000)

/* The binary that answers `--list-devices` for engine e: DIR/llama-bench
 * when it exists, else DIR/llama-server when that exists, else NULL.
 * Returns a malloc'd absolute path (e->dir is absolute). */
char *engine_probe_binary(const lvd_engine *e);

/* Runs `binary --list-devices` (argv, timeout_ms, process group killed on
 * timeout) and fills out->backend, devices, reason and env (the visibility
 * variables the child inherited); nothing else of out is touched. An engine
 * that could not be asked (cannot execute, timed out, killed by a signal,
 * non-zero exit, no device list in its output) gets
 * backend "unknown" and a one-line reason; that is an outcome, not an error. */
void engine_probe_run(const char *binary, int timeout_ms, lvd_probe *out);

/* engine_probe_run on binary; when that is a llama-bench that does not know
 * the option (llama-bench has --list-devices from b6522 on: an older one
 * exits saying "invalid parameter for argument: --list-devices") and a
 * llama-server lies beside it, that one's answer instead; when no tool has
 * --list-devices (ik_llama.cpp), the devices its backends announce as
 * llama-bench starts (`llama-bench --help`, engine/startup.h), else the CPU
 * when its llama-server and llama-perplexity --help offer no -ngl (GPU
 * offload), else "unknown" saying why. The probe stays keyed by binary (the
 * caller's out->binary, mtime and size), as engine_probe_binary names it. */
void engine_probe_ask(const char *binary, int timeout_ms, lvd_probe *out);

/* Probes engine e (e->id must be set): serves the store's cached probe when
 * it is fresh (same binary, mtime and size, made under the same
 * device-visibility environment (engine/visibility.h: a probe under another
 * environment is another probe), younger than ENGINE_PROBE_TTL_S, not
 * "unknown", no newer failed probe of the engine under that environment, and
 * the engine's file set the one it recorded: engine/identity.h) unless
 * refresh is set; otherwise runs the binary (timeout_ms <= 0 means
 * ENGINE_PROBE_TIMEOUT_MS) and records what it said, "unknown" outcomes
 * included (for display; they are never served as a cache hit), with the
 * file set, the backends carried and the no-device note (out->changed says
 * why a cached probe was not served). A missing
 * binary is an "unknown" probe too. Fills out (caller frees with
 * lvd_probe_free). Returns 0 whatever the engine answered, -1 only when the
 * store failed (err names it). */
int engine_probe_engine(store *s, const lvd_engine *e, int refresh, int timeout_ms, lvd_probe *out,
                       lvd_err *err);
/* The same; *cached (may be NULL) is set to 1 when the store answered and
 * no process was run. */
int engine_probe_engine_ex(store *s, const lvd_engine *e, int refresh, int timeout_ms, lvd_probe *out,
                          int *cached, lvd_err *err);

/* One probe as a JSON object: engine (name), engine_id, dir, build, semver
 * (the engine's SemVer version; null before the SemVer releases), binary,
 * backend, reason (null unless unknown), probed_at, cached, env ({NAME: VALUE}
 * of the visibility variables set; null when not recorded), bin_mtime_ns,
 * bin_size, backends [], no_device, cuda_archs, reprobed_because, n_files,
 * devices [{selector, name, total_mib, free_mib, backend, compute_cap,
 * cuda_arch_flag}] (null where not printed). The caller owns it. */
struct cJSON *engine_probe_json(const lvd_engine *e, const lvd_probe *p, int cached);

/* Prints n probes as a table, one row per engine and one line per device:
 *   ENGINE      BACKEND  PROBE   DEVICES
 *   cuda-local  cuda     cached  CUDA0: NVIDIA H200 (143155 MiB, 142629 MiB free), cc 9.0
 * PROBE is "cached", "probed" or "failed"; an unknown engine shows its reason
 * under DEVICES; under the devices come "version: 0.4.1-dev" (an engine of the
 * SemVer releases), "backends: ...", "note: ..." (a
 * backend with no device) and "re-probed: ..." lines when there is one, and a
 * device's CUDA arch flag follows it. e[i], p[i] and cached[i] belong
 * together. A last line says the environment they were made under (p[0]'s:
 * one run, one environment):
 *   environment: GGML_VK_VISIBLE_DEVICES=0 */
void engine_probe_table(FILE *f, const lvd_engine *e, const lvd_probe *p, const int *cached, size_t n);

#endif
