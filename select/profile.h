/* profile.h: the operator profile, selection rule 1 (man lvd-select,
 * PROFILE): a small file in the common/kv.h format that names the engine
 * (or backend) and device a model must use and the runtime flags to start
 * it with. It wins outright over verdicts and heuristics. Example (the
 * notes after '#' on the right are for this header only: kv.h has no
 * comments after a value):
 *
 *     # /etc/llama-verdict/chat.profile
 *     backend = vulkan          # or: engine = b9749-vulkan (a registered name)
 *     device = Vulkan0          # verbatim from that engine's `lvd probe`
 *     ctx = 8192                # -c; 0 = the model's training context
 *     fa = on                   # on | off | auto (also 1/0, yes/no, true/false)
 *     ctk = q8_0                # -ctk / -ctv cache types
 *     ctv = q8_0
 *     ngl = 99                  # -ngl, n-cpu-moe, ub: override placement
 *     n-cpu-moe = 0
 *     ub = 256
 *     threads = 8               # -t
 *     env.GGML_VK_PREFER_HOST_MEMORY = 1
 *
 * Every key is optional; a key given twice keeps the last value. A profile
 * naming none of backend, engine and device decides nothing: its flags
 * apply on top of whatever rules 2-4 choose. Parsing is pure (no store);
 * sel_profile_resolve finds what a profile names among the registered
 * engines and their cached probes (select/engines.h), as the selection's
 * gather step asks it. */
#ifndef LVD_SEL_PROFILE_H
#define LVD_SEL_PROFILE_H

#include "common/types.h"
#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

struct sel_engines;
struct sel_pick;

/* fa = auto: -fa is not passed (llama.cpp's default), whatever a verdict's arm used. */
#define SEL_PROFILE_FA_AUTO 2

typedef struct sel_profile {
    char *file;            /* the name used in messages */
    char backend[16];      /* lower case ("cuda", "vulkan", "cpu", ...); "" = not given */
    char *engine;          /* a registered engine name; NULL = not given */
    char device[64];       /* a selector as the engine's probe prints it; "" = not given */
    int line_backend, line_engine, line_device; /* where each was given (0 = not) */
    int64_t ctx;           /* -c; -1 = not given, 0 = the model's training context */
    int ngl;               /* -1 = not given (placement decides) */
    int n_cpu_moe;         /* -1 = not given (placement decides) */
    int ubatch;            /* -1 = not given (placement decides) */
    int fa;                /* -1 = not given, 0 off, 1 on, SEL_PROFILE_FA_AUTO */
    char type_k[16];       /* "" = not given */
    char type_v[16];
    int threads;           /* 0 = not given */
    char env[256];         /* "K=V K2=V2" in file order; "" = none */
} sel_profile;

/* Parses profile text (len bytes; name is used in messages). Keys: backend,
 * engine, device, ctx, fa, ctk, ctv, ngl, n-cpu-moe, ub, threads, env.NAME.
 * Errors name NAME:LINE and what is wrong: an unknown key, a value out of
 * range or of the wrong form (backend not [a-z0-9]+, device with blanks or
 * commas, a cache type llama-server does not accept, an env name that is not
 * [A-Za-z_][A-Za-z0-9_]* or a value with blanks, more env than fits). 0, or
 * -1 with err (then *out is empty). */
int sel_profile_parse(const char *text, size_t len, const char *name, sel_profile *out,
                      lvd_err *err);
/* Reads and parses path (at most 1 MiB). */
int sel_profile_load(const char *path, sel_profile *out, lvd_err *err);
void sel_profile_free(sel_profile *p);

/* 1 when the profile names an engine, backend or device (rule 1 decides). */
int sel_profile_decides(const sel_profile *p);

/* The engine and device a deciding profile names (select/engines.h): its
 * engine (by name, usable) and the first device of it, or of every usable
 * engine, that matches its device selector and backend; "backend = cpu" is
 * the named engine, else the first usable engine whose probe lists no
 * device, on the CPU; an engine named alone whose probe lists no device is
 * that CPU build. 0 with *out, or -1 with err naming the profile's file and
 * line and what the probes show instead (bad input: the profile cannot be
 * honoured here). */
int sel_profile_resolve(const sel_profile *p, const struct sel_engines *es, struct sel_pick *out, lvd_err *err);

/* Writes the runtime flags the profile gives over *params (device excepted:
 * the caller resolves it against the probe); flags it does not give are
 * left as they are. ngl, n-cpu-moe and ub are written too. env.* entries
 * replace params' environment as a whole (the operator states all of it). */
void sel_profile_apply(const sel_profile *p, lvd_params *params);

#endif
