/* fuzz_fitplan.c: libFuzzer harness for what lvd reads of a build's own
 * flags, fit and split support: the plan line llama-fit-params prints
 * (engine_fit_plan_parse), its --fit-print rows (engine_fitprint_parse:
 * read, at most ENGINE_FITPRINT_MAX_ROWS, non-negative, the host's last,
 * or refused naming llama-fit-params) and a --help text (engine_help_parse: its option
 * lines, the record a probe keeps of them, -fitt and the split modes). A
 * plan is either parsed (a non-negative context, -ngl present, host blocks
 * counted only from -ot entries) or refused with a message naming
 * llama-fit-params; every option read has a name starting with '-'; the
 * record reads back as the same options; split modes are known bits only;
 * nothing crashes or leaks. Seeded by scripts/fuzz from the real --help
 * captures and tests/fuzz/seeds/fuzz_fitplan/ (plan lines in
 * llama-fit-params' format). */
#include "engine/fit.h"
#include "engine/fitprint.h"
#include "engine/help.h"
#include "engine/splitmodes.h"
#include "tests/fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    engine_fit_plan p;
    lvd_err err;
    if (engine_fit_plan_parse(text, &p, &err) == 0) {
        FUZZ_CHECK(p.ctx >= 0 && p.host_blocks >= 0);
        FUZZ_CHECK(p.overrides ? p.host_blocks <= (int)strlen(p.overrides) : p.host_blocks == 0);
        FUZZ_CHECK(!p.ts || p.ts[0]);
        engine_fit_plan_free(&p);
    } else {
        FUZZ_CHECK(!strncmp(err.msg, "llama-fit-params", 16)); /* "llama-fit-params: ..." or "... printed no plan" */
    }
    engine_fitprint fp;
    if (engine_fitprint_parse(text, &fp, &err) == 0) {
        FUZZ_CHECK(fp.n >= 1 && fp.n <= ENGINE_FITPRINT_MAX_ROWS && !strcmp(fp.rows[fp.n - 1].name, "Host"));
        for (size_t i = 0; i < fp.n; i++)
            FUZZ_CHECK(fp.rows[i].model_mib >= 0 && fp.rows[i].context_mib >= 0 && fp.rows[i].compute_mib >= 0);
    } else {
        FUZZ_CHECK(!strncmp(err.msg, "llama-fit-params", 16));
    }
    engine_help h = {.opts = NULL}, back;
    engine_help_parse(&h, ENGINE_TOOL_BENCH, text);
    for (size_t i = 0; i < h.n; i++)
        for (size_t k = 0; k < h.opts[i].n_names; k++)
            FUZZ_CHECK(h.opts[i].names[k][0] == '-');
    char *record = engine_help_record(&h);
    engine_help_load(record, &back);
    FUZZ_CHECK(back.known[ENGINE_TOOL_BENCH] == h.known[ENGINE_TOOL_BENCH]);
    char *again = engine_help_record(&back); /* the record of a record is itself */
    FUZZ_CHECK(!strcmp(record, again));
    engine_fit_caps caps;
    engine_fit_caps_of("/nonexistent", &h, &caps);
    FUZZ_CHECK(caps.bench_fitt == (engine_help_opt(&h, ENGINE_TOOL_BENCH, "-fitt") != NULL));
    int modes = engine_split_modes_of(&h);
    FUZZ_CHECK((modes & ~(ENGINE_SM_NONE | ENGINE_SM_LAYER | ENGINE_SM_ROW | ENGINE_SM_TENSOR)) == 0);
    free(again);
    free(record);
    engine_help_free(&back);
    engine_help_free(&h);
    free(text);
    return 0;
}
