/* fuzz_benchout.c: libFuzzer harness for the llama-bench output parser (json,
 * jsonl, sql text). It must return 0 or -1 with an error naming the input,
 * never crash or leak, and what it accepts must make arm keys. Build with
 * clang and -DLVD_FUZZ=ON; seed it with tests/fixtures/llama.cpp/ bench-*. */
#include "benchio/arm.h"
#include "benchio/benchout.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    benchio_rows rows;
    lvd_err err;
    if (benchio_parse_rows((const char *)data, size, BENCHIO_FMT_AUTO, "fuzz.out", &rows, &err) != 0) {
        if (strncmp(err.msg, "fuzz.out: ", 10) != 0)
            __builtin_trap();
        return 0;
    }
    for (size_t i = 0; i < rows.n; i++) {
        const lvd_result *r = &rows.v[i].result;
        if (!r->test[0] || !r->reported_json || (r->n && !r->ts))
            __builtin_trap();
        lvd_params p;
        char key[1024];
        benchio_params_from_result(r, &p);
        if (benchio_arm_key(&p, key, sizeof key) != 0)
            __builtin_trap();
    }
    benchio_rows_free(&rows);
    return 0;
}
