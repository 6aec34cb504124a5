/* fuzz_visibility.c: libFuzzer harness for the device-visibility records
 * (engine/visibility.c: "NAME=VALUE NAME2=VALUE2" words stored with each
 * probe, where a record may be corrupted). The input is a record, then a NUL
 * byte, then assignments (none: NULL), then a NUL byte and a backend
 * (default "cuda"). Invariants: every word engine_visibility_for_device and
 * engine_visibility_apply return is a word of their inputs, of a variable of
 * the table, at most once, in table order (for_device: only those the
 * backend needs; apply: each table variable the assignments set, as they
 * set it); apply is idempotent and for_device reads the same of a record
 * and of its canonical form; engine_env_merge fits a buffer large enough and
 * leaves "" when not, keeping every assignment; the JSON has one member per
 * word with '='. Never crash or leak. Seeded from tests/fuzz/seeds/fuzz_visibility/. */
#include "engine/visibility.h"
#include "tests/fuzz/fuzzutil.h"

#include <cjson/cJSON.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int has_word(const char *s, const char *w)
{
    size_t n;
    char **v = lvd_split(s ? s : "", ' ', &n);
    int found = 0;
    for (size_t i = 0; i < n && !found; i++)
        found = !strcmp(v[i], w);
    lvd_strv_free(v);
    return found;
}

/* The table index of word w's name, or -1. */
static int var_of(const char *w)
{
    size_t nv, len = strcspn(w, "=");
    const engine_visibility_var *vars = engine_visibility_vars(&nv);
    for (size_t i = 0; i < nv; i++)
        if (strlen(vars[i].name) == len && !strncmp(vars[i].name, w, len) && w[len] == '=')
            return (int)i;
    return -1;
}

/* rec's words: each of a table variable, in table order, once, and a word of a or b. */
static void check_record(const char *rec, const char *a, const char *b, const char *backend)
{
    size_t n, nv;
    const engine_visibility_var *vars = engine_visibility_vars(&nv);
    char **w = lvd_split(rec, ' ', &n);
    int last = -1;
    for (size_t i = 0; i < n; i++) {
        int k = var_of(w[i]);
        FUZZ_CHECK(k > last && (has_word(a, w[i]) || has_word(b, w[i])));
        FUZZ_CHECK(!backend || engine_visibility_needs(vars[k].name, backend));
        last = k;
    }
    lvd_strv_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *env = fuzz_cstr(data, size);
    char *assign = (char *)fuzz_split(env, size);
    const char *backend = assign ? fuzz_split(assign, size - (size_t)(assign - env)) : NULL;
    if (!backend)
        backend = "cuda";

    char *dev = engine_visibility_for_device(env, backend);
    check_record(dev, env, NULL, backend);
    char *canon = engine_visibility_apply(env, NULL);
    check_record(canon, env, NULL, NULL);
    char *again = engine_visibility_apply(canon, NULL), *dev2 = engine_visibility_for_device(canon, backend);
    FUZZ_CHECK(!strcmp(again, canon) && !strcmp(dev2, dev));
    char *applied = engine_visibility_apply(env, assign);
    check_record(applied, env, assign, NULL);
    size_t na;
    char **aw = lvd_split(assign ? assign : "", ' ', &na);
    for (size_t i = 0; i < na; i++) /* the first assignment to each table variable is in force */
        if (var_of(aw[i]) >= 0) {
            size_t len = strcspn(aw[i], "=");
            int first = 1;
            for (size_t j = 0; j < i && first; j++)
                first = strncmp(aw[j], aw[i], len + 1) != 0;
            FUZZ_CHECK(!first || has_word(applied, aw[i]));
        }
    char *again2 = engine_visibility_apply(applied, NULL);
    FUZZ_CHECK(!strcmp(again2, applied));

    size_t big = strlen(env) + (assign ? strlen(assign) : 0) + 2;
    char *buf = lvd_xmalloc(big), small[64];
    FUZZ_CHECK(engine_env_merge(env, assign, buf, big) == 0 && strlen(buf) < big);
    for (size_t i = 0; i < na; i++)
        FUZZ_CHECK(has_word(buf, aw[i]));
    if (engine_env_merge(env, assign, small, sizeof small) == 0)
        FUZZ_CHECK(!strcmp(small, buf));
    else
        FUZZ_CHECK(small[0] == '\0' && strlen(buf) >= sizeof small);
    lvd_strv_free(aw);

    char text[256];
    engine_visibility_describe(NULL, text, sizeof text);
    FUZZ_CHECK(!strncmp(text, "not recorded", 12));
    engine_visibility_describe(env, text, sizeof text);
    FUZZ_CHECK(*env ? !strncmp(text, env, sizeof text - 1) : !strcmp(text, "no device-visibility variable set"));

    cJSON *j = engine_visibility_json(env), *nul = engine_visibility_json(NULL);
    FUZZ_CHECK(cJSON_IsNull(nul) && cJSON_IsObject(j));
    size_t nw, with_eq = 0;
    char **w = lvd_split(env, ' ', &nw);
    for (size_t i = 0; i < nw; i++)
        with_eq += strchr(w[i], '=') != NULL;
    FUZZ_CHECK((size_t)cJSON_GetArraySize(j) == with_eq);
    lvd_strv_free(w);
    cJSON_Delete(j);
    cJSON_Delete(nul);

    free(buf);
    free(again2);
    free(applied);
    free(dev2);
    free(again);
    free(canon);
    free(dev);
    free(env);
    return 0;
}
