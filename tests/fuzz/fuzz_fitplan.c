/* fuzz_fitplan.c: libFuzzer harness for what lvd reads of a build's own fit
 * and split support: the plan line llama-fit-params prints
 * (engine_fit_plan_parse), and the --help text's -fitt and --split-mode
 * lines (engine_fit_help_has_fitt, engine_split_modes_parse). A plan is
 * either parsed (a non-negative context, -ngl present, host blocks counted
 * only from -ot entries) or refused with a message naming llama-fit-params;
 * the help parsers return known bits only; nothing crashes or leaks. Seeded
 * by scripts/fuzz from the real llama-bench --help captures and
 * tests/fuzz/seeds/fuzz_fitplan/ (plan lines in llama-fit-params' format). */
#include "engine/fit.h"
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
    int has = engine_fit_help_has_fitt(text);
    FUZZ_CHECK(has == 0 || has == 1);
    int modes = engine_split_modes_parse(text);
    FUZZ_CHECK((modes & ~(ENGINE_SM_NONE | ENGINE_SM_LAYER | ENGINE_SM_ROW | ENGINE_SM_TENSOR)) == 0);
    free(text);
    return 0;
}
