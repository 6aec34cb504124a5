/* launch.h: the llama-server launch line a verdict hands to the service: an
 * argv array and an environment array (what a process runner takes), and
 * the same as one POSIX shell line and as JSON for people and scripts.
 * Not for running it: the product never goes through a shell (proc_run). */
#ifndef LVD_SEL_LAUNCH_H
#define LVD_SEL_LAUNCH_H

#include "common/types.h"
#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

struct cJSON;

typedef struct sel_launch {
    char **argv;   /* NULL-terminated; argv[0] is ENGINE_DIR/llama-server */
    size_t argc;
    char **env;    /* NULL-terminated "NAME=VALUE" assignments the arm used */
    size_t n_env;
    char *left_out; /* the flags the engine's llama-server --help does not list, left out
                       of argv (engine/argv.h note); NULL: none */
} sel_launch;

/* Builds `llama-server -m MODEL [--device SEL] [-ngl N] [--n-cpu-moe N]
 * [-ub N] [-fa on|off] [-ctk T] [-ctv T] [-t N] [-c CTX] [-np N]` from the
 * parameters (engine/argv.h), each flag only when set (lvd_params' "not
 * passed" values) and ctx only when > 0 (llama-server's -c 0 is the model's
 * own context). gpu_capable 0 (the engine's probe listed no device) drops
 * --device, -ngl and --n-cpu-moe: a CPU-only build ignores them silently,
 * and a line that shows them would claim what cannot happen. The device
 * selector is copied verbatim. flags is what the engine's tools list, as
 * its probe recorded them (engine/help.h; NULL: not known): a flag its
 * llama-server does not list is left out, and out->left_out says so.
 * p->env ("K=V K2=V2") becomes the env array. 0, or -1 with err (empty
 * engine dir or model, an out-of-range number, an unknown cache type, a
 * quantized -ctv with -fa off (bench/kvpair.h: llama.cpp refuses it), an
 * env word that is not NAME=VALUE); *out is then empty. */
int sel_launch_build(const char *engine_dir, const char *flags, const char *model, const lvd_params *p,
                     uint32_t ctx, int gpu_capable, sel_launch *out, lvd_err *err);

/* Adds to l's env the device-visibility variables a device of backend needs
 * from probe_env, the environment record its probe was made under
 * (engine/visibility.h), each unless l already assigns that name (the
 * arm's or profile's own word wins): the service sees the device that was
 * chosen. 0, or -1 (l unchanged) when a word is not NAME=VALUE. */
int sel_launch_carry_env(sel_launch *l, const char *probe_env, const char *backend);

void sel_launch_free(sel_launch *l);

/* The launch as one shell line: the env assignments as NAME=VALUE prefix
 * words (value quoted), then every argv word quoted (lvd_shell_quote);
 * argv[0] quoted also when it has '=' (it must not read as an assignment). `sh -c LINE` runs
 * exactly argv with env added. Caller frees. */
char *sel_launch_to_shell(const sel_launch *l);

/* {"argv": [...], "env": ["NAME=VALUE", ...]}; caller owns the object. */
struct cJSON *sel_launch_to_json(const sel_launch *l);

#endif
