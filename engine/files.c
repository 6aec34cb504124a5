/* files.c: the file set that is an engine's identity, its recorded key and
 * the comparison of a key with the disk (rules in files.h). Reads
 * directories, stat(2)s and the ELF dynamic sections (engine/elf.c);
 * never hashes. */
#include "engine/files.h"

#include "engine/elf.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const launchers[] = {"llama-bench", "llama-cli", "llama-perplexity", "llama-server"};

typedef struct lister {
    engine_fileset *fs;
    char *dir;          /* realpath of the engine directory */
    char *tree;         /* the engine tree (files.h) */
    char **extra;       /* RUNPATH directories inside the tree, other than dir */
    size_t n_extra;
    size_t cap;
} lister;

static int is_library(const char *name)
{
    return lvd_ends_with(name, ".so") || strstr(name, ".so.") != NULL;
}

static int is_module(const char *name)
{
    return lvd_starts_with(name, "libggml-") && is_library(name);
}

static int has(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], s))
            return 1;
    return 0;
}

/* Adds path (named rel) when it is a regular file not yet in the set: 1 added, 0 not. */
static int add(lister *l, const char *path, const char *rel)
{
    engine_fileset *fs = l->fs;
    struct stat st;
    if (fs->n >= ENGINE_FILES_MAX || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    for (size_t i = 0; i < fs->n; i++)
        if (!strcmp(fs->v[i].rel, rel))
            return 0;
    if (fs->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        fs->v = lvd_xrealloc(fs->v, l->cap * sizeof *fs->v);
    }
    fs->v[fs->n++] = (engine_file){
        .rel = lvd_xstrdup(rel), .path = lvd_xstrdup(path), .size = (int64_t)st.st_size,
        .mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
        .inode = (int64_t)st.st_ino};
    return 1;
}

/* The path of sub relative to dir, both canonical and absolute: "../lib". */
static char *relative(const char *dir, const char *sub)
{
    size_t nd, ns, k = 0;
    char **d = lvd_split(dir, '/', &nd), **s = lvd_split(sub, '/', &ns);
    while (k < nd && k < ns && !strcmp(d[k], s[k]))
        k++;
    lvd_sb sb = {0};
    for (size_t i = k; i < nd; i++)
        lvd_sb_adds(&sb, sb.len ? "/.." : "..");
    for (size_t i = k; i < ns; i++)
        lvd_sb_addf(&sb, "%s%s", sb.len ? "/" : "", s[i]);
    lvd_strv_free(d);
    lvd_strv_free(s);
    return sb.len ? lvd_sb_detach(&sb) : (lvd_sb_free(&sb), lvd_xstrdup("."));
}

/* Adds the libraries of directory d (only_needed: those a file of the set
 * names in DT_NEEDED, and ggml backend modules; rel names prefixed with d's
 * path relative to the engine directory). Returns the number added. */
static size_t add_dir(lister *l, const char *d, int only_needed)
{
    DIR *dp = opendir(d);
    if (!dp)
        return 0;
    char *prefix = only_needed ? relative(l->dir, d) : NULL;
    size_t added = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        const char *name = de->d_name;
        int want = only_needed ? has(l->fs->needed, l->fs->n_needed, name) || is_module(name) : is_library(name);
        if (!want)
            continue;
        char *path = lvd_xasprintf("%s/%s", d, name);
        char *rel = prefix ? lvd_xasprintf("%s/%s", prefix, name) : lvd_xstrdup(name);
        added += (size_t)add(l, path, rel);
        free(path);
        free(rel);
    }
    closedir(dp);
    free(prefix);
    return added;
}

static int inside(const char *tree, const char *path)
{
    size_t n = strlen(tree);
    return !strncmp(tree, path, n) && (path[n] == '/' || path[n] == '\0' || !strcmp(tree, "/"));
}

/* Notes a RUNPATH entry of file f: an $ORIGIN directory inside the tree. */
static void note_runpath(lister *l, const engine_file *f, const char *entry)
{
    const char *rest = lvd_starts_with(entry, "$ORIGIN") ? entry + 7
                       : lvd_starts_with(entry, "${ORIGIN}") ? entry + 9 : NULL;
    if (!rest || (*rest && *rest != '/'))
        return;
    char *origin = lvd_xstrdup(f->path);
    *strrchr(origin, '/') = '\0';
    char *joined = lvd_xasprintf("%s%s", origin, rest);
    char *real = realpath(joined, NULL);
    if (real && inside(l->tree, real) && strcmp(real, l->dir) && !has(l->extra, l->n_extra, real) &&
        l->n_extra < 64) {
        lvd_strv_push(&l->extra, &l->n_extra, real);
        real = NULL;
    }
    free(real);
    free(joined);
    free(origin);
}

/* Reads the ELF dynamic section of every file from *done on. */
static void scan_elf(lister *l, size_t *done)
{
    engine_fileset *fs = l->fs;
    for (; *done < fs->n; (*done)++) {
        engine_elf_dyn dyn;
        if (engine_elf_read(fs->v[*done].path, &dyn, NULL) != 0)
            continue;
        for (size_t i = 0; i < dyn.n_needed; i++)
            if (!has(fs->needed, fs->n_needed, dyn.needed[i]))
                lvd_strv_push(&fs->needed, &fs->n_needed, lvd_xstrdup(dyn.needed[i]));
        for (size_t i = 0; i < dyn.n_runpath; i++)
            note_runpath(l, &fs->v[*done], dyn.runpath[i]);
        engine_elf_free(&dyn);
    }
}

static int by_rel(const void *a, const void *b)
{
    return strcmp(((const engine_file *)a)->rel, ((const engine_file *)b)->rel);
}

int engine_files_list(const char *dir, engine_fileset *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    lister l = {.fs = out, .dir = realpath(dir, NULL)};
    DIR *probe = l.dir ? opendir(l.dir) : NULL;
    if (!probe) {
        lvd_errf(err, "%s: %s", dir, strerror(errno));
        free(l.dir);
        return -1;
    }
    closedir(probe);
    l.tree = lvd_xstrdup(l.dir);
    char *slash = strrchr(l.tree, '/');
    if (slash && !strcmp(slash + 1, "bin"))
        *(slash == l.tree ? slash + 1 : slash) = '\0';
    for (size_t i = 0; i < LVD_ARRAY_LEN(launchers); i++) {
        char *path = lvd_xasprintf("%s/%s", l.dir, launchers[i]);
        add(&l, path, launchers[i]);
        free(path);
    }
    add_dir(&l, l.dir, 0);
    size_t done = 0, added;
    do { /* the RUNPATH directories, until nothing new is needed */
        scan_elf(&l, &done);
        added = 0;
        for (size_t i = 0; i < l.n_extra; i++)
            added += add_dir(&l, l.extra[i], 1);
    } while (added);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, by_rel);
    lvd_strv_push(&out->dirs, &out->n_dirs, l.dir);
    for (size_t i = 0; i < l.n_extra; i++)
        lvd_strv_push(&out->dirs, &out->n_dirs, l.extra[i]);
    free(l.extra);
    free(l.tree);
    return 0;
}

void engine_fileset_free(engine_fileset *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        free(fs->v[i].rel);
        free(fs->v[i].path);
    }
    free(fs->v);
    lvd_strv_free(fs->needed);
    lvd_strv_free(fs->dirs);
    memset(fs, 0, sizeof *fs);
}

char *engine_files_key(const engine_fileset *fs)
{
    lvd_sb sb = {0};
    for (size_t i = 0; i < fs->n; i++)
        lvd_sb_addf(&sb, "%s\t%lld\t%lld\t%lld\n", fs->v[i].rel, (long long)fs->v[i].size,
                    (long long)fs->v[i].mtime_ns, (long long)fs->v[i].inode);
    return lvd_sb_detach(&sb);
}

/* The decimal number at *p up to the character stop (or the end when stop
 * is 0), *p moved past it: 0, or -1 when there is none or something else. */
static int number(const char **p, char stop, long long *v)
{
    char *end;
    errno = 0;
    *v = strtoll(*p, &end, 10);
    if (end == *p || errno || *end != stop)
        return -1;
    *p = stop ? end + 1 : end;
    return 0;
}

/* One line of a key: 0, or -1 when it is not "REL\tSIZE\tMTIME\tINODE". */
static int parse_line(const char *line, engine_file *f, char *rel, size_t len)
{
    const char *tab = strchr(line, '\t');
    long long size, mtime, inode;
    const char *p = tab ? tab + 1 : NULL;
    if (!tab || (size_t)(tab - line) >= len || tab == line || number(&p, '\t', &size) ||
        number(&p, '\t', &mtime) || number(&p, '\0', &inode))
        return -1;
    snprintf(rel, len, "%.*s", (int)(tab - line), line);
    *f = (engine_file){.rel = rel, .size = size, .mtime_ns = mtime, .inode = inode};
    return 0;
}

static int set_change(engine_files_change *ch, engine_files_kind kind, const char *file, const char *what)
{
    ch->kind = kind;
    snprintf(ch->file, sizeof ch->file, "%.*s", (int)sizeof ch->file - 1, file);
    ch->what = what;
    return kind == ENGINE_FILES_SAME;
}

int engine_files_compare(const char *key, const engine_fileset *fs, engine_files_change *ch)
{
    size_t n;
    char **lines = key ? lvd_split(key, '\n', &n) : NULL;
    size_t i = 0, j = 0;
    int rc = -1;
    while (lines && rc < 0) {
        engine_file was = {0}; /* read only when i < n (gcc -O3 cannot see it) */
        char rel[PATH_MAX] = "";
        if (i < n && parse_line(lines[i], &was, rel, sizeof rel) != 0)
            break;
        const engine_file *now = j < fs->n ? &fs->v[j] : NULL;
        int cmp = i >= n ? (now ? 1 : 0) : !now ? -1 : strcmp(rel, now->rel);
        if (i >= n && !now)
            rc = set_change(ch, ENGINE_FILES_SAME, "", NULL);
        else if (cmp < 0)
            rc = set_change(ch, ENGINE_FILES_GONE, rel, NULL);
        else if (cmp > 0)
            rc = set_change(ch, ENGINE_FILES_APPEARED, now->rel, NULL);
        else if (was.size != now->size || was.mtime_ns != now->mtime_ns || was.inode != now->inode)
            rc = set_change(ch, ENGINE_FILES_CHANGED, rel,
                            was.size != now->size ? "size" : was.mtime_ns != now->mtime_ns ? "mtime" : "inode");
        i++, j++;
    }
    if (rc < 0)
        rc = set_change(ch, ENGINE_FILES_UNRECORDED, "", NULL);
    lvd_strv_free(lines);
    return rc;
}

void engine_files_change_text(const engine_files_change *ch, const char *when, char *buf, size_t len)
{
    switch (ch->kind) {
    case ENGINE_FILES_SAME: snprintf(buf, len, "no file changed since %s", when); break;
    case ENGINE_FILES_CHANGED: snprintf(buf, len, "%s changed since %s (%s)", ch->file, when, ch->what); break;
    case ENGINE_FILES_APPEARED: snprintf(buf, len, "%s appeared since %s", ch->file, when); break;
    case ENGINE_FILES_GONE: snprintf(buf, len, "%s is gone since %s", ch->file, when); break;
    case ENGINE_FILES_UNRECORDED: snprintf(buf, len, "no file set was recorded with %s", when); break;
    }
}
