/* fuzz_config.c: libFuzzer harness for the nightly configuration. The loader
 * takes a path (as lvd-nightly does), so each input is written to one file in
 * a directory made once per process, then loaded. It must return -1 with a
 * message naming that file or 0 with a config whose every value was checked:
 * at least one model, absolute paths, a valid candidate, counts and timeouts
 * inside their bounds. Never a crash or a leak. Seeds: share/nightly.conf.example,
 * tests/fuzz/seeds/fuzz_config/. */
#include "nightly/config.h"
#include "tests/fuzz/fuzzutil.h"

#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64], path[96];

static void cleanup(void)
{
    unlink(path);
    rmdir(dir);
}

static int absolute(const char *p)
{
    return p && p[0] == '/';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/lvd-fuzz-config-XXXXXX", tmp && strlen(tmp) < 32 ? tmp : "/tmp");
        FUZZ_CHECK(mkdtemp(dir) != NULL);
        snprintf(path, sizeof path, "%s/nightly.conf", dir);
        atexit(cleanup);
    }
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0);
    night_config c;
    lvd_err err;
    if (night_config_load(path, &c, &err) != 0) {
        FUZZ_CHECK(!strncmp(err.msg, path, strlen(path)) && !c.models && !c.source);
        return 0;
    }
    FUZZ_CHECK(!c.is_default && !strcmp(c.source, path));
    FUZZ_CHECK(c.n_models >= 1 && c.models[c.n_models] == NULL);
    for (size_t i = 0; i < c.n_models; i++)
        FUZZ_CHECK(absolute(c.models[i]));
    FUZZ_CHECK(c.n_flavours == 0 || c.flavours[c.n_flavours] == NULL);
    FUZZ_CHECK(absolute(c.pin_file) && absolute(c.evidence) && absolute(c.log));
    FUZZ_CHECK(!c.builds_dir || absolute(c.builds_dir));
    FUZZ_CHECK(!strcmp(c.candidate, "latest") || !strcmp(c.candidate, "none") ||
               (c.candidate[0] == 'b' && c.candidate[1] &&
                strspn(c.candidate + 1, "0123456789") == strlen(c.candidate + 1)));
    FUZZ_CHECK(c.min_age[0] && c.tests[0] && c.budget[0] && c.objective[0]);
    FUZZ_CHECK(c.max_samples >= 1 && c.max_samples <= 1000 && c.reps >= 0 && c.reps <= 100); /* 0: unset, the cost model chooses */
    FUZZ_CHECK((c.fetch == 0 || c.fetch == 1) && (c.promote == 0 || c.promote == 1));
    FUZZ_CHECK(c.step_timeout_s > 0 && c.step_timeout_s < 86400);
    night_config_free(&c);
    return 0;
}
