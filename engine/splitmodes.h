/* splitmodes.h: the split modes (-sm) an engine's llama-bench accepts, read
 * from what its --help lists (tests/fixtures/llama.cpp/cpu-build-b9749/bench-help:
 * "-sm, --split-mode <none|layer|row|tensor>"; llama-server's help spells
 * "{none,layer,row,tensor}"). Older builds list no "tensor". Not for choosing
 * which modes to measure (bench/plan.h). */
#ifndef LVD_ENGINE_SPLITMODES_H
#define LVD_ENGINE_SPLITMODES_H

#include "common/util.h"
#include "engine/help.h"

enum {
    ENGINE_SM_NONE = 1 << 0,
    ENGINE_SM_LAYER = 1 << 1,
    ENGINE_SM_ROW = 1 << 2,
    ENGINE_SM_TENSOR = 1 << 3,
};
/* What a build whose help could not be read is assumed to accept: every
 * llama-bench since -sm exists takes none, layer and row. */
#define ENGINE_SM_ASSUMED (ENGINE_SM_NONE | ENGINE_SM_LAYER | ENGINE_SM_ROW)

/* The ENGINE_SM_* bits llama-bench's -sm option names in h (engine/help.h:
 * what its --help lists, kept with the probe); ENGINE_SM_ASSUMED when h
 * lists no such option or it names no mode this knows (h NULL included). */
int engine_split_modes_of(const engine_help *h);

/* "layer", "row", "tensor", "none" for one bit; NULL otherwise. */
const char *engine_split_mode_name(int bit);

#endif
