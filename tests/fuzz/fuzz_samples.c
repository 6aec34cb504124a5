/* fuzz_samples.c: libFuzzer harness for the store's packed text that a
 * damaged or hand-edited store can hold: a result's samples
 * (store/store_samples.h, with its exact fast path for t/s values) and a
 * packed document (store/store_docs.h). The first two bytes are the test's
 * tokens (n_prompt), the rest the text. Samples: 0 with every t/s finite
 * and the same count store_samples_totals reads, written back by
 * store_samples_encode to text that decodes to the same numbers bit for
 * bit; or -1 with an error naming the store. A packed document: NULL or a
 * text that packs and unpacks to itself. Never a crash or a leak. Seeds:
 * tests/fuzz/seeds/fuzz_samples/. */
#include "store/store_docs.h"
#include "store/store_samples.h"
#include "tests/fuzz/fuzzutil.h"

#include <math.h>

#define PATH "fuzz.db"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_samples(const lvd_result *a, const lvd_result *b)
{
    FUZZ_CHECK(a->n == b->n);
    for (size_t i = 0; i < a->n; i++) {
        FUZZ_CHECK(memcmp(&a->ts[i], &b->ts[i], sizeof a->ts[i]) == 0);
        FUZZ_CHECK(a->ns[i] == b->ns[i] && a->warmup[i] == b->warmup[i]);
    }
}

static void samples(const char *text, int tokens)
{
    lvd_result x = {.n_prompt = tokens};
    lvd_err err;
    store_sample_totals t;
    int rc = store_samples_decode(PATH, text, &x, &err);
    int tr = store_samples_totals(PATH, text, tokens, &t, &err);
    if (rc != 0) {
        FUZZ_CHECK(!strncmp(err.msg, PATH ":", strlen(PATH ":")));
        lvd_result_free(&x);
        return;
    }
    FUZZ_CHECK(tr == 0 && t.n == (int)x.n);
    for (size_t i = 0; i < x.n; i++)
        FUZZ_CHECK(isfinite(x.ts[i]));
    char *again = store_samples_encode(PATH, &x, &err);
    FUZZ_CHECK(again != NULL);
    lvd_result y = {.n_prompt = tokens};
    FUZZ_CHECK(store_samples_decode(PATH, again, &y, &err) == 0);
    same_samples(&x, &y);
    free(again);
    lvd_result_free(&y);
    lvd_result_free(&x);
}

static void document(const uint8_t *data, size_t size)
{
    char *text = store_doc_unpack(data, size);
    if (!text)
        return;
    size_t len = 0;
    unsigned char *packed = store_doc_pack(text, &len);
    if (packed) {
        char *back = store_doc_unpack(packed, len);
        FUZZ_CHECK(back && !strcmp(back, text));
        free(back);
        free(packed);
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int tokens = data[0] | (data[1] & 0x7f) << 8;
    char *text = fuzz_cstr(data + 2, size - 2);
    samples(text, tokens);
    free(text);
    document(data + 2, size - 2);
    return 0;
}
