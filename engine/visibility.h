/* visibility.h: the environment variables that decide which devices a
 * llama.cpp engine sees (CUDA_VISIBLE_DEVICES, GGML_VK_VISIBLE_DEVICES, ...):
 * the one table of them, the canonical record of those in force (the probe
 * cache's key), and the one rule for which of them a device needs carried
 * into a bench arm, a check run or a launch line.
 *
 * An environment record is a string of "NAME=VALUE" words separated by one
 * blank, in table order, only the variables that are set ("NAME=" when set
 * and empty, which is not unset: CUDA_VISIBLE_DEVICES= hides every CUDA
 * device); "" when none is set. NULL stands for "not recorded" (probes made
 * before environments were recorded). Values are taken verbatim; a value
 * with blanks cannot be carried (llama.cpp's own are comma lists).
 * Not for bench environment knobs (GGML_VK_PREFER_HOST_MEMORY: bench/plan.h),
 * nor for running anything. */
#ifndef LVD_ENGINE_VISIBILITY_H
#define LVD_ENGINE_VISIBILITY_H

#include "common/util.h"

#include <stddef.h>

struct cJSON;

typedef struct engine_visibility_var {
    const char *name;
    const char *backends;  /* the device backends it applies to, ',' separated */
    const char *what;      /* one line for people */
} engine_visibility_var;

/* The table (man lvd-probe, "Device visibility", shows the same). */
const engine_visibility_var *engine_visibility_vars(size_t *n);

/* The record of the variables set in this process's environment. Malloc'd. */
char *engine_visibility_current(void);

/* The rule: 1 when a device of backend (a device backend: "cuda", "vulkan",
 * "rocm", "sycl", ...) needs variable name carried wherever it is used, 0
 * otherwise (a name not in the table, the CPU, metal). */
int engine_visibility_needs(const char *name, const char *backend);

/* The words of record env (NULL = none) that a device of backend needs
 * (engine_visibility_needs), as "NAME=VALUE NAME2=VALUE2"; malloc'd, "" when
 * none. */
char *engine_visibility_for_device(const char *env, const char *backend);

/* Record env (NULL = "") with the table variables that assignments ("K=V
 * K2=V2", any other word ignored; NULL = none) set replaced or added: the
 * environment a child started with those assignments sees. Malloc'd record. */
char *engine_visibility_apply(const char *env, const char *assignments);

/* "K=V" lists: base's words, those named in over replaced by over's, then
 * over's others, into buf. 0, or -1 when it does not fit (buf then ""). */
int engine_env_merge(const char *base, const char *over, char *buf, size_t len);

/* One line for people: "GGML_VK_VISIBLE_DEVICES=0",
 * "no device-visibility variable set", or for NULL "not recorded". */
void engine_visibility_describe(const char *env, char *buf, size_t len);

/* {"NAME": "VALUE", ...} for record env, or JSON null for NULL. */
struct cJSON *engine_visibility_json(const char *env);

#endif
