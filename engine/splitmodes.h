/* splitmodes.h: the split modes (-sm) an engine's llama-bench accepts, read
 * from its --help text (tests/fixtures/llama.cpp/cpu-build-b9749/bench-help:
 * "-sm, --split-mode <none|layer|row|tensor>"; llama-server's help spells
 * "{none,layer,row,tensor}"). Older builds list no "tensor". Not for choosing
 * which modes to measure (bench/plan.h). */
#ifndef LVD_ENGINE_SPLITMODES_H
#define LVD_ENGINE_SPLITMODES_H

#include "common/util.h"

enum {
    ENGINE_SM_NONE = 1 << 0,
    ENGINE_SM_LAYER = 1 << 1,
    ENGINE_SM_ROW = 1 << 2,
    ENGINE_SM_TENSOR = 1 << 3,
};
/* What a build whose help could not be read is assumed to accept: every
 * llama-bench since -sm exists takes none, layer and row. */
#define ENGINE_SM_ASSUMED (ENGINE_SM_NONE | ENGINE_SM_LAYER | ENGINE_SM_ROW)

/* The ENGINE_SM_* bits named on the --split-mode line of help_text; 0 when
 * the text has no such line (or it names no mode this knows). */
int engine_split_modes_parse(const char *help_text);

/* Runs `binary --help` (argv, timeout_ms; llama-bench prints its usage on
 * stdout and exits 0) and parses it; ENGINE_SM_ASSUMED when it cannot be run
 * or names no mode. */
int engine_split_modes_probe(const char *binary, int timeout_ms);

/* "layer", "row", "tensor", "none" for one bit; NULL otherwise. */
const char *engine_split_mode_name(int bit);

#endif
