/* fuzz_splitname.c: libFuzzer harness for the split-model shard name parser
 * (gguf_split_parse_name, gguf_split_first). The input is a path (to its
 * first NUL). The parser must return 1 only for a name that is exactly
 * prefix-NNNNN-of-CCCCC.gguf with 1 <= NNNNN <= CCCCC (gguf_split_shard_path
 * of what it returned gives the input back); 0 with no prefix; or -1 with no
 * prefix and a message naming the path. gguf_split_first must give shard 1's
 * name for a shard of several, else the path itself. Never crash or leak.
 * Seeded by scripts/fuzz with the names of real models and shard names. */
#include "common/gguf_split.h"
#include "tests/fuzz/fuzzutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_cstr(data, size);
    gguf_split_name sn;
    lvd_err err;
    int rc = gguf_split_parse_name(path, &sn, &err);
    char *first = gguf_split_first(path);
    FUZZ_CHECK(rc >= -1 && rc <= 1);
    if (rc != 1) {
        FUZZ_CHECK(!sn.prefix && !sn.no && !sn.count && !strcmp(first, path));
        char *line = lvd_xstrdup(path); /* messages are one line: CR and LF folded to blanks */
        for (char *p = line; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
        FUZZ_CHECK(rc == 0 || strlen(path) > 512 || fuzz_names(&err, line));
        free(line);
    } else {
        FUZZ_CHECK(sn.prefix && sn.no >= 1 && sn.no <= sn.count && sn.count <= 99999);
        char *again = gguf_split_shard_path(sn.prefix, sn.no, sn.count);
        FUZZ_CHECK(!strcmp(again, path));
        char *want = sn.count > 1 ? gguf_split_shard_path(sn.prefix, 1, sn.count) : lvd_xstrdup(path);
        FUZZ_CHECK(!strcmp(first, want));
        gguf_split_name sf;
        FUZZ_CHECK(gguf_split_parse_name(first, &sf, &err) == 1 && sf.no == (sn.count > 1 ? 1 : sn.no) &&
                   sf.count == sn.count && !strcmp(sf.prefix, sn.prefix));
        free(sf.prefix);
        free(want);
        free(again);
    }
    free(sn.prefix);
    free(first);
    free(path);
    return 0;
}
