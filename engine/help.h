/* help.h: which flags a llama.cpp build's tools list in their --help, read
 * once per engine identity and kept with its probe, so that no tool of
 * llama-verdict passes a flag the build does not have (engine/argv.h).
 *
 * A --help option line (llama-bench's own usage and common/arg.cpp's, of
 * every era: tests/fixtures/llama.cpp/) starts within four spaces of the
 * line's start with its names, then at most one argument hint after one
 * space; the description follows after two or more:
 *   "  -fa, --flash-attn <on|off|auto>                   (default: auto)"
 *   "-fa,   --flash-attn [on|off|auto]       set Flash Attention use ..."
 *   "-fa,   --flash-attn                     enable Flash Attention"  (a switch)
 *   "         --chunks N               max number of chunks ..."  (ik_llama.cpp's
 *                       long-only option, in its long names' column: 9 spaces)
 * A text that lists no -m/--model is not a help this reads (a tool that
 * printed something else): that tool stays unknown, and every flag is
 * passed to it as before.
 *
 * The record a probe keeps (probes.flags) holds, per tool read, the option
 * lines whose names llama-verdict may pass (engine_argv_vocabulary), names
 * and argument only:
 *   lvd-flags 2
 *   [llama-bench]
 *   -fa --flash-attn <on|off|auto>
 *   [llama-server]
 *   -fa --flash-attn [on|off|auto]
 * A record of another version is read as nothing known (the probe reads the
 * help again). Not for building argv (engine/argv.h) nor for running the
 * tools (bench/, check/, fit/). */
#ifndef LVD_ENGINE_HELP_H
#define LVD_ENGINE_HELP_H

#include "common/util.h"

#include <stddef.h>

/* The llama.cpp tools whose flags llama-verdict passes. */
typedef enum engine_tool {
    ENGINE_TOOL_BENCH,       /* llama-bench */
    ENGINE_TOOL_SERVER,      /* llama-server */
    ENGINE_TOOL_PERPLEXITY,  /* llama-perplexity */
    ENGINE_TOOL_FIT_PARAMS,  /* llama-fit-params */
    ENGINE_TOOL_COUNT
} engine_tool;

/* "llama-bench", ... */
const char *engine_tool_name(engine_tool t);

/* One option line: its names ("-fa", "--flash-attn") and argument hint
 * ("<on|off|auto>", "[on|off|auto]", "" for a switch). */
typedef struct engine_opt {
    engine_tool tool;
    char **names;
    size_t n_names;
    char *arg;
} engine_opt;

typedef struct engine_help {
    int known[ENGINE_TOOL_COUNT]; /* 1: that tool's --help was read and lists -m */
    engine_opt *opts;
    size_t n;
} engine_help;

/* Adds the option lines of tool's --help text to h; the tool is known when
 * they name -m or --model. */
void engine_help_parse(engine_help *h, engine_tool tool, const char *text);

/* Runs DIR/TOOL --help (10 s; stdout and stderr read alike) for every tool
 * of dir that is executable and parses each into h (zeroed first). */
void engine_help_read(const char *dir, engine_help *h);

/* The record form of h (rules above): only the options whose names
 * llama-verdict may pass. malloc'd. */
char *engine_help_record(const engine_help *h);
/* 1 when record is of this version (else it is read as nothing known). */
int engine_help_current(const char *record);
/* Reads a record into h (zeroed first); NULL, or a record of another
 * version, leaves every tool unknown. */
void engine_help_load(const char *record, engine_help *h);

/* What an engine offers, for a question about its capabilities (-fitt, the
 * split modes): its probe's record loaded into h, or when the probe kept
 * none (one made before records were kept) DIR's tools read now. */
void engine_help_recorded(const char *dir, const char *record, engine_help *h);

/* The option of tool that has name, or NULL (not listed, or not known). */
const engine_opt *engine_help_opt(const engine_help *h, engine_tool tool, const char *name);

void engine_help_free(engine_help *h);

#endif
