/* fuzz_pplout.c: libFuzzer harness for the llama-perplexity output parser.
 * The input is the tool's stdout, then a NUL byte, then its stderr (no NUL:
 * stdout only). The parser must return 0 with something it read (running
 * estimates, a final estimate, Mean PPL(Q) or KL divergence statistics) or -1
 * with a message naming the input, and never crash or leak. Seeded by
 * scripts/fuzz from the perplexity captures in tests/fixtures/llama.cpp/. */
#include "check/pplout.h"
#include "tests/fuzz/fuzzutil.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    const char *err_text = fuzz_split(text, size);
    check_ppl res;
    lvd_err err;
    if (check_ppl_parse(text, err_text, "fuzz.ppl", &res, &err) != 0) {
        FUZZ_CHECK(fuzz_names(&err, "fuzz.ppl") && !res.chunks && res.n_chunks == 0);
        free(text);
        return 0;
    }
    FUZZ_CHECK((res.n_chunks == 0) == (res.chunks == NULL) && res.n_chunks <= 100000);
    FUZZ_CHECK(res.n_chunks || res.has_final || !isnan(res.ppl_q) || res.has_kld);
    FUZZ_CHECK(res.has_final || isnan(res.ppl));
    FUZZ_CHECK(res.has_kld || isnan(res.mean_kld));
    double v = check_ppl_value(&res);
    if (res.has_final)
        FUZZ_CHECK(isnan(v) ? isnan(res.ppl) : v == res.ppl);
    check_ppl_free(&res);
    FUZZ_CHECK(!res.chunks && res.n_chunks == 0);
    free(text);
    return 0;
}
