/* family.h: which line of llama.cpp an engine is (common/types.h's
 * LVD_FAMILY_*), told from the engine's own words, and the build tag that
 * goes with it. Mainline llama.cpp and ik_llama.cpp print the same
 * `version: 4840 (8337e4cd3)` line, but ik_llama.cpp's number counts its own
 * history (4 840 commits in Aug 2026, a fork of mid-2024) and means nothing
 * against mainline's b<N>: its tag is "ik4840", never "b4840", and build
 * numbers are compared only within one family (builds/older.h).
 *
 * The words, strongest first:
 *   ik_llama.cpp  a --help listing its own knobs (-fmoe/--fused-moe,
 *                 -no-fmoe, -rtr/--run-time-repack, -mla/--mla-use,
 *                 -ser/--smart-expert-reduction), or llama-bench's JSON
 *                 with its fields (fused_moe, rtr, mla_attn) and no
 *                 "backends"
 *   llama.cpp     none of ik's words, and a version line of a form mainline
 *                 prints (engine/version.h) or a --help listing --list-devices
 *                 (mainline's from b6522; ik_llama.cpp has none); registered
 *                 with a mainline tag (--build b9749) by a user, with no
 *                 words of any family (a llama-bench alone of an old build)
 *   unknown       neither: a fork whose words fit no family known here
 * Not for asking the engine (engine/register.h runs --version, help.h
 * --help) nor for the pin's rules (builds/). */
#ifndef LVD_ENGINE_FAMILY_H
#define LVD_ENGINE_FAMILY_H

#include "common/types.h"
#include "engine/help.h"
#include "engine/version.h"

#include <stddef.h>
#include <stdint.h>

struct cJSON;

/* The family h (the tools' --help, NULL: not read) and v (the version line,
 * NULL or form NULL: none read) say (static string, LVD_FAMILY_*). */
const char *engine_family_detect(const engine_help *h, const engine_version *v);

/* 1 when name is a flag that tells a family (ik's knobs, mainline's
 * --list-devices): engine_help_read keeps its option line. */
int engine_family_word(const char *name);

/* 1 when llama-bench's JSON object of one test (its keys) is ik_llama.cpp's
 * (its own fields, no "backends"), 0 otherwise. */
int engine_family_bench_json_ik(const struct cJSON *row);

/* The build tag of number in family into buf: "ik4840" for ik_llama.cpp,
 * "b10587" for llama.cpp; "" for an unknown family (it has no tag of its
 * own: the user gives --build). */
void engine_family_tag(const char *family, int64_t number, char *buf, size_t len);

/* How an engine is named to a user: "ik_llama.cpp build 4840" for an
 * ik_llama.cpp engine tagged ik4840, "llama.cpp b10587" for mainline's,
 * "unknown fork, build ID" otherwise. */
void engine_family_describe(const lvd_engine *e, char *buf, size_t len);

#endif
