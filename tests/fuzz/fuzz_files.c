/* fuzz_files.c: libFuzzer harness for the parser of recorded file-set keys
 * (engine_files_compare reading "REL\tSIZE\tMTIME_NS\tINODE\n" lines from
 * the store, where a key may be corrupted). The input is a key, then a NUL
 * byte, then the files on disk as the same kind of lines (parsed here
 * strictly, a bare REL meaning 0 0 0; sorted and made unique as
 * engine_files_list makes them). Invariants: a NULL key is UNRECORDED; the
 * set's own key (engine_files_key) compares SAME; for the fuzzed key the
 * result is 1 exactly when SAME, SAME only when the key has one line per
 * file, a GONE file starts a line of the key, an APPEARED or CHANGED file is
 * one of the set's (cut to 255 bytes), CHANGED says size, mtime or inode,
 * and the phrase names the file. Never crash or leak. Seeded from
 * tests/fuzz/seeds/fuzz_files/ (keys of real llama.cpp engine layouts). */
#include "engine/files.h"
#include "tests/fuzz/fuzzutil.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int by_rel(const void *a, const void *b)
{
    return strcmp(((const engine_file *)a)->rel, ((const engine_file *)b)->rel);
}

/* The set the lines of text describe (at most 64 files, names under 1024 bytes). */
static void make_set(const char *text, engine_fileset *fs)
{
    memset(fs, 0, sizeof *fs);
    size_t n;
    char **lines = lvd_split(text ? text : "", '\n', &n);
    fs->v = lvd_xcalloc(n ? n : 1, sizeof *fs->v);
    for (size_t i = 0; i < n && fs->n < 64; i++) {
        size_t rl = strcspn(lines[i], "\t");
        if (rl == 0 || rl >= 1024)
            continue;
        engine_file f = {.rel = lvd_xasprintf("%.*s", (int)rl, lines[i])};
        if (lines[i][rl])
            sscanf(lines[i] + rl + 1, "%lld\t%lld\t%lld", (long long *)&f.size, (long long *)&f.mtime_ns,
                   (long long *)&f.inode);
        f.path = lvd_xstrdup(f.rel);
        fs->v[fs->n++] = f;
    }
    lvd_strv_free(lines);
    qsort(fs->v, fs->n, sizeof *fs->v, by_rel);
    size_t k = 0;
    for (size_t i = 0; i < fs->n; i++) {
        if (k && !strcmp(fs->v[k - 1].rel, fs->v[i].rel)) {
            free(fs->v[i].rel);
            free(fs->v[i].path);
            continue;
        }
        fs->v[k++] = fs->v[i];
    }
    fs->n = k;
}

static int in_set(const engine_fileset *fs, const char *file)
{
    for (size_t i = 0; i < fs->n; i++)
        if (!strncmp(fs->v[i].rel, file, 255) && strlen(file) == (strlen(fs->v[i].rel) < 255 ? strlen(fs->v[i].rel) : 255))
            return 1;
    return 0;
}

static int starts_line(const char *key, const char *file)
{
    size_t n = strlen(file);
    for (const char *l = key; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (!strncmp(l, file, n))
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *key = fuzz_cstr(data, size);
    engine_fileset fs;
    make_set(fuzz_split(key, size), &fs);
    engine_files_change ch;

    FUZZ_CHECK(engine_files_compare(NULL, &fs, &ch) == 0 && ch.kind == ENGINE_FILES_UNRECORDED && !ch.file[0]);
    char *own = engine_files_key(&fs);
    FUZZ_CHECK(engine_files_compare(own, &fs, &ch) == 1 && ch.kind == ENGINE_FILES_SAME && !ch.file[0]);
    free(own);

    int rc = engine_files_compare(key, &fs, &ch);
    FUZZ_CHECK((rc == 1) == (ch.kind == ENGINE_FILES_SAME) && (rc == 0 || rc == 1));
    FUZZ_CHECK(strlen(ch.file) < sizeof ch.file);
    size_t lines;
    lvd_strv_free(lvd_split(key, '\n', &lines));
    switch (ch.kind) {
    case ENGINE_FILES_SAME: FUZZ_CHECK(!ch.file[0] && lines == fs.n); break;
    case ENGINE_FILES_UNRECORDED: FUZZ_CHECK(!ch.file[0]); break;
    case ENGINE_FILES_GONE: FUZZ_CHECK(ch.file[0] && starts_line(key, ch.file)); break;
    case ENGINE_FILES_APPEARED: FUZZ_CHECK(in_set(&fs, ch.file)); break;
    case ENGINE_FILES_CHANGED:
        FUZZ_CHECK(in_set(&fs, ch.file) && ch.what &&
                   (!strcmp(ch.what, "size") || !strcmp(ch.what, "mtime") || !strcmp(ch.what, "inode")));
        break;
    default: FUZZ_CHECK(0);
    }
    char text[512];
    engine_files_change_text(&ch, "the verdict", text, sizeof text);
    FUZZ_CHECK(strstr(text, "the verdict") && strstr(text, ch.file));
    engine_fileset_free(&fs);
    free(key);
    return 0;
}
