/* fuzz_profile.c: libFuzzer harness for the operator profile (select/profile.h).
 * The parser must return -1 with "fuzz.profile:..." and an empty profile, or 0
 * with a profile whose fields keep their documented ranges; applying it to
 * default parameters must keep every string terminated. Never a crash or a
 * leak. Seeds: tests/fuzz/seeds/fuzz_profile/. */
#include "select/profile.h"
#include "tests/fuzz/fuzzutil.h"

#define NAME "fuzz.profile"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 64 * 1024)
        return 0;
    sel_profile p;
    lvd_err err;
    if (sel_profile_parse((const char *)data, size, NAME, &p, &err) != 0) {
        FUZZ_CHECK(!strncmp(err.msg, NAME ":", strlen(NAME ":")));
        return 0;
    }
    FUZZ_CHECK(memchr(p.backend, '\0', sizeof p.backend) && memchr(p.device, '\0', sizeof p.device));
    FUZZ_CHECK(memchr(p.type_k, '\0', sizeof p.type_k) && memchr(p.env, '\0', sizeof p.env));
    FUZZ_CHECK(p.ctx >= -1 && p.ngl >= -1 && p.n_cpu_moe >= -1 && p.ubatch >= -1);
    FUZZ_CHECK(p.fa == -1 || p.fa == 0 || p.fa == 1 || p.fa == SEL_PROFILE_FA_AUTO);
    FUZZ_CHECK(p.threads >= 0);
    FUZZ_CHECK(!sel_profile_decides(&p) == (!p.backend[0] && !p.engine && !p.device[0]));
    sel_profile_free(&p);
    return 0;
}
