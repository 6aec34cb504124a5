/* fuzz_kv.c: libFuzzer harness for the `key = value` format every config
 * file uses (common/kv.h). The parser must return -1 with "NAME:..." or 0
 * with entries whose keys are valid, whose lines rise, whose lookup finds the
 * last value given, and which lvd_kv_format writes back to the same entries;
 * with condition keys (lvd_kv_parse_cond) the same errors, and keys that are
 * one non-empty word. Never a crash or a leak. Seeds: share/ files and tests/fuzz/seeds/fuzz_kv/. */
#include "common/kv.h"
#include "tests/fuzz/fuzzutil.h"

#define NAME "fuzz.conf"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lvd_kvfile kv;
    lvd_err err;
    if (lvd_kv_parse_cond((const char *)data, size, NAME, &kv, &err) != 0) {
        FUZZ_CHECK(!strncmp(err.msg, NAME ":", strlen(NAME ":")) && !kv.v && kv.n == 0);
    } else {
        for (size_t i = 0; i < kv.n; i++)
            FUZZ_CHECK(kv.v[i].key[0] && !strpbrk(kv.v[i].key, " \t\n\r\v\f"));
        lvd_kv_free(&kv);
    }
    if (lvd_kv_parse((const char *)data, size, NAME, &kv, &err) != 0) {
        FUZZ_CHECK(!strncmp(err.msg, NAME ":", strlen(NAME ":")) && !kv.v && kv.n == 0);
        return 0;
    }
    FUZZ_CHECK(!strcmp(kv.name, NAME));
    lvd_sb sb = {0};
    size_t written = 0;
    for (size_t i = 0; i < kv.n; i++) {
        const lvd_kv *e = &kv.v[i];
        FUZZ_CHECK(e->key[0] && e->line >= 1 && (i == 0 || e->line > kv.v[i - 1].line));
        FUZZ_CHECK(!strchr(e->value, '\n'));
        const lvd_kv *last = lvd_kv_find(&kv, e->key);
        FUZZ_CHECK(last && last >= e && !strcmp(last->key, e->key));
        FUZZ_CHECK(lvd_kv_get(&kv, e->key) == last->value);
        /* a key read back is a key that can be written */
        lvd_err ferr;
        if (lvd_kv_format(&sb, e->key, e->value, &ferr) == 0)
            written++;
        else
            FUZZ_CHECK(strpbrk(e->value, "\r") != NULL);
    }
    lvd_kvfile again;
    FUZZ_CHECK(lvd_kv_parse(lvd_sb_str(&sb), sb.len, NAME, &again, &err) == 0);
    FUZZ_CHECK(again.n == written);
    for (size_t i = 0, j = 0; i < kv.n && j < again.n; i++) {
        if (strchr(kv.v[i].value, '\r'))
            continue;
        FUZZ_CHECK(!strcmp(kv.v[i].key, again.v[j].key) && !strcmp(kv.v[i].value, again.v[j].value));
        j++;
    }
    lvd_kv_free(&again);
    lvd_sb_free(&sb);
    lvd_kv_free(&kv);
    return 0;
}
