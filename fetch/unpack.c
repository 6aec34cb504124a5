/* unpack.c: safe, all-or-nothing extraction of release archives (see
 * unpack.h). Defence in depth: every entry is judged before libarchive writes
 * it, libarchive's own SECURE_* checks stay on, and the finished tree is
 * audited once more (a hardlink to a symlink can move a relative link) before
 * it is renamed into place. */
#include "fetch/unpack.h"

#include "fetch/http.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_NAME_LEN 1024
#define ENGINE_SEARCH_DEPTH 4

void fetch_limits_default(fetch_limits *l)
{
    l->max_entry_bytes = (uint64_t)4 << 30;
    l->max_total_bytes = (uint64_t)32 << 30;
    l->max_entries = 100000;
}

/* Walks the '/'-separated components of path, adjusting *depth: "" and "."
 * leave it, ".." lowers it, anything else raises it. 0 while it never went
 * below zero; -1 as soon as it did. */
static int walk(const char *path, int *depth)
{
    const char *p = path;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--*depth < 0)
                return -1;
        } else if (n > 0 && !(n == 1 && p[0] == '.')) {
            ++*depth;
        }
        p += n;
        while (*p == '/')
            p++;
    }
    return 0;
}

int fetch_entry_name_safe(const char *name)
{
    if (!name || !*name || name[0] == '/' || strlen(name) > MAX_NAME_LEN)
        return 0;
    const char *p = name;
    int any = 0;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 0;
        if (n > 0 && !(n == 1 && p[0] == '.'))
            any = 1;
        p += n;
        while (*p == '/')
            p++;
    }
    return any;
}

int fetch_link_target_safe(const char *entry, const char *target)
{
    if (!fetch_entry_name_safe(entry) || !target || !*target || target[0] == '/' ||
        strlen(target) > MAX_NAME_LEN)
        return 0;
    /* the link lives in entry's directory */
    char *dir = lvd_xstrdup(entry);
    size_t n = strlen(dir);
    while (n > 0 && dir[n - 1] == '/')
        dir[--n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    else
        dir[0] = '\0';
    int depth = 0;
    int ok = walk(dir, &depth) == 0 && walk(target, &depth) == 0;
    free(dir);
    return ok;
}

/* --- finding the engine ------------------------------------------------- */

static const char *const engine_names[] = {"llama-server", "llama-bench", "llama-server.exe",
                                           "llama-bench.exe"};

static int holds_engine(const char *dir)
{
    for (size_t i = 0; i < LVD_ARRAY_LEN(engine_names); i++) {
        char *p = lvd_xasprintf("%s/%s", dir, engine_names[i]);
        struct stat st;
        int ok = lstat(p, &st) == 0 && S_ISREG(st.st_mode);
        free(p);
        if (ok)
            return 1;
    }
    return 0;
}

int fetch_find_engine_dir(const char *root, char **rel)
{
    *rel = NULL;
    /* breadth-first over relative paths; queue of malloc'd strings */
    size_t cap = 16, head = 0, tail = 0;
    char **queue = lvd_xmalloc(cap * sizeof *queue);
    int *depth = lvd_xmalloc(cap * sizeof *depth);
    queue[tail] = lvd_xstrdup("");
    depth[tail++] = 0;
    while (head < tail && !*rel) {
        char *r = queue[head];
        int d = depth[head++];
        char *abs = r[0] ? lvd_xasprintf("%s/%s", root, r) : lvd_xstrdup(root);
        if (holds_engine(abs)) {
            *rel = lvd_xstrdup(r);
        } else if (d < ENGINE_SEARCH_DEPTH) {
            DIR *dh = opendir(abs);
            struct dirent *e;
            while (dh && (e = readdir(dh))) {
                if (e->d_name[0] == '.')
                    continue;
                char *child = lvd_xasprintf("%s/%s", abs, e->d_name);
                struct stat st;
                int is_dir = lstat(child, &st) == 0 && S_ISDIR(st.st_mode);
                free(child);
                if (!is_dir)
                    continue;
                if (tail == cap) {
                    cap *= 2;
                    queue = lvd_xrealloc(queue, cap * sizeof *queue);
                    depth = lvd_xrealloc(depth, cap * sizeof *depth);
                }
                queue[tail] = r[0] ? lvd_xasprintf("%s/%s", r, e->d_name) : lvd_xstrdup(e->d_name);
                depth[tail++] = d + 1;
            }
            if (dh)
                closedir(dh);
        }
        free(abs);
    }
    for (size_t i = 0; i < tail; i++)
        free(queue[i]);
    free(queue);
    free(depth);
    return *rel ? 0 : 1;
}

/* --- auditing the finished tree ----------------------------------------- */

/* Every node under root is a regular file, a directory, or a symlink whose
 * target stays inside; rel is the path relative to root. */
static int audit(const char *root, const char *rel, const char *archive, lvd_err *err)
{
    char *abs = rel[0] ? lvd_xasprintf("%s/%s", root, rel) : lvd_xstrdup(root);
    struct stat st;
    int rc = 0;
    if (lstat(abs, &st) != 0) {
        rc = fetch_errf(err, "%s: cannot inspect %s after extraction: %s", archive, rel,
                        strerror(errno));
    } else if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        ssize_t n = readlink(abs, target, sizeof target - 1);
        if (n < 0)
            rc = fetch_errf(err, "%s: cannot read link %s: %s", archive, rel, strerror(errno));
        else {
            target[n] = '\0';
            if (!fetch_link_target_safe(rel, target))
                rc = fetch_errf(err, "%s: refusing entry %s: symlink to %s points outside the "
                                     "archive root",
                                archive, rel, target);
        }
    } else if (S_ISDIR(st.st_mode)) {
        DIR *dh = opendir(abs);
        struct dirent *e;
        while (rc == 0 && dh && (e = readdir(dh))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char *child = rel[0] ? lvd_xasprintf("%s/%s", rel, e->d_name) : lvd_xstrdup(e->d_name);
            rc = audit(root, child, archive, err);
            free(child);
        }
        if (dh)
            closedir(dh);
    } else if (!S_ISREG(st.st_mode)) {
        rc = fetch_errf(err, "%s: refusing entry %s: not a regular file, directory or symlink",
                        archive, rel);
    }
    free(abs);
    return rc;
}

/* --- extraction --------------------------------------------------------- */

/* One entry judged before it is written. */
static int judge(struct archive_entry *e, const char *archive, const fetch_limits *lim,
                 uint64_t declared_total, lvd_err *err)
{
    const char *name = archive_entry_pathname(e);
    if (!name)
        name = archive_entry_pathname_utf8(e);
    if (!name)
        return fetch_errf(err, "%s: refusing an entry without a readable name", archive);
    if (!fetch_entry_name_safe(name))
        return fetch_errf(err, "%s: refusing entry %s: %s", archive, name,
                          name[0] == '/'                  ? "absolute path"
                          : strlen(name) > MAX_NAME_LEN   ? "name too long"
                          : strstr(name, "..") != NULL    ? "escapes the archive root (..)"
                                                          : "empty name");
    const char *hard = archive_entry_hardlink(e);
    if (hard && !fetch_entry_name_safe(hard))
        return fetch_errf(err, "%s: refusing entry %s: hardlink to %s points outside the "
                               "archive root",
                          archive, name, hard);
    mode_t type = archive_entry_filetype(e);
    if (!hard) {
        switch (type) {
        case AE_IFREG:
        case AE_IFDIR:
            break;
        case AE_IFLNK: {
            const char *target = archive_entry_symlink(e);
            if (!fetch_link_target_safe(name, target))
                return fetch_errf(err, "%s: refusing entry %s: symlink to %s points outside the "
                                       "archive root",
                                  archive, name, target ? target : "(nothing)");
            break;
        }
        case AE_IFCHR:
        case AE_IFBLK:
            return fetch_errf(err, "%s: refusing entry %s: device file", archive, name);
        case AE_IFIFO:
            return fetch_errf(err, "%s: refusing entry %s: fifo", archive, name);
        case AE_IFSOCK:
            return fetch_errf(err, "%s: refusing entry %s: socket", archive, name);
        default:
            return fetch_errf(err, "%s: refusing entry %s: unknown file type", archive, name);
        }
    }
    if (archive_entry_size_is_set(e)) {
        int64_t size = archive_entry_size(e);
        if (size < 0 || (uint64_t)size > lim->max_entry_bytes)
            return fetch_errf(err, "%s: refusing entry %s: declares %lld bytes (limit %llu)",
                              archive, name, (long long)size,
                              (unsigned long long)lim->max_entry_bytes);
        if (declared_total + (uint64_t)size > lim->max_total_bytes)
            return fetch_errf(err, "%s: refusing entry %s: the archive declares more than %llu "
                                   "bytes in all",
                              archive, name, (unsigned long long)lim->max_total_bytes);
    }
    /* no setuid, setgid or sticky bits from a download */
    archive_entry_set_perm(e, archive_entry_perm(e) & 0777);
    return 0;
}

static int copy_data(struct archive *in, struct archive *out, const char *archive, const char *name,
                     const fetch_limits *lim, uint64_t *total, lvd_err *err)
{
    uint64_t entry = 0;
    for (;;) {
        const void *buf;
        size_t size;
        la_int64_t offset;
        int r = archive_read_data_block(in, &buf, &size, &offset);
        if (r == ARCHIVE_EOF)
            return 0;
        if (fetch_interrupted())
            return fetch_errf(err, "%s: extraction interrupted by signal %d", archive,
                              fetch_interrupted());
        if (r < ARCHIVE_WARN)
            return fetch_errf(err, "%s: entry %s: %s", archive, name, archive_error_string(in));
        entry += size;
        *total += size;
        if (entry > lim->max_entry_bytes)
            return fetch_errf(err, "%s: refusing entry %s: more than %llu bytes", archive, name,
                              (unsigned long long)lim->max_entry_bytes);
        if (*total > lim->max_total_bytes)
            return fetch_errf(err, "%s: refusing entry %s: the archive unpacks to more than %llu "
                                   "bytes",
                              archive, name, (unsigned long long)lim->max_total_bytes);
        if (archive_write_data_block(out, buf, size, offset) < ARCHIVE_WARN)
            return fetch_errf(err, "%s: entry %s: %s", archive, name, archive_error_string(out));
    }
}

/* Extracts archive into the current directory (the temporary root). */
static int extract_here(const char *archive, const char *label, const fetch_limits *lim,
                        lvd_err *err)
{
    struct archive *in = archive_read_new();
    archive_read_support_filter_gzip(in);
    archive_read_support_format_tar(in);
    archive_read_support_format_gnutar(in);
    archive_read_support_format_zip(in);
    struct archive *out = archive_write_disk_new();
    archive_write_disk_set_options(out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                            ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                            ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
    int rc = 0;
    if (archive_read_open_filename(in, archive, 1 << 20) != ARCHIVE_OK) {
        rc = fetch_errf(err, "%s: cannot open archive: %s", label, archive_error_string(in));
        goto done;
    }
    uint64_t entries = 0, declared = 0, total = 0;
    for (;;) {
        struct archive_entry *e;
        int r = archive_read_next_header(in, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN) {
            rc = fetch_errf(err, "%s: not a readable tar.gz or zip archive: %s", label,
                            archive_error_string(in));
            break;
        }
        if (fetch_interrupted()) {
            rc = fetch_errf(err, "%s: extraction interrupted by signal %d", label,
                            fetch_interrupted());
            break;
        }
        if (++entries > lim->max_entries) {
            rc = fetch_errf(err, "%s: refusing archive: more than %llu entries", label,
                            (unsigned long long)lim->max_entries);
            break;
        }
        if ((rc = judge(e, label, lim, declared, err)) != 0)
            break;
        if (archive_entry_size_is_set(e))
            declared += (uint64_t)archive_entry_size(e);
        const char *name = archive_entry_pathname(e);
        char *shown = lvd_xstrdup(name ? name : "?");
        if (archive_write_header(out, e) < ARCHIVE_WARN) {
            rc = fetch_errf(err, "%s: entry %s: %s", label, shown, archive_error_string(out));
        } else if (archive_entry_size(e) > 0 || !archive_entry_size_is_set(e)) {
            rc = copy_data(in, out, label, shown, lim, &total, err);
        }
        if (rc == 0 && archive_write_finish_entry(out) < ARCHIVE_WARN)
            rc = fetch_errf(err, "%s: entry %s: %s", label, shown, archive_error_string(out));
        free(shown);
        if (rc != 0)
            break;
    }
    if (rc == 0 && entries == 0)
        rc = fetch_errf(err, "%s: the archive is empty", label);
done:
    if (archive_write_close(out) != ARCHIVE_OK && rc == 0)
        rc = fetch_errf(err, "%s: finishing extraction: %s", label, archive_error_string(out));
    archive_write_free(out);
    archive_read_free(in);
    return rc;
}

int fetch_unpack(const char *archive, const char *label, const char *target,
                 const fetch_limits *lim, const char *manifest_name, const char *manifest_text,
                 char **engine_rel, lvd_err *err)
{
    if (!label)
        label = archive;
    *engine_rel = NULL;
    fetch_limits defaults;
    if (!lim) {
        fetch_limits_default(&defaults);
        lim = &defaults;
    }
    struct stat st;
    if (lstat(target, &st) == 0)
        return fetch_errf(err, "%s: already exists", target);
    char *parent = lvd_xstrdup(target);
    size_t plen = strlen(parent);
    while (plen > 1 && parent[plen - 1] == '/')
        parent[--plen] = '\0';
    char *slash = strrchr(parent, '/');
    const char *base = slash ? slash + 1 : parent;
    char *tmpl = slash ? lvd_xasprintf("%.*s/.tmp-%s-XXXXXX", (int)(slash - parent), parent, base)
                       : lvd_xasprintf(".tmp-%s-XXXXXX", base);
    if (slash) {
        *slash = '\0';
        if (parent[0] && lvd_mkdir_p(parent, err) != 0) {
            free(parent);
            free(tmpl);
            return -1;
        }
    }
    free(parent);
    if (!mkdtemp(tmpl)) {
        int e = errno;
        fetch_errf(err, "%s: cannot create a temporary directory: %s", tmpl, strerror(e));
        free(tmpl);
        return -1;
    }

    int rc = 0;
    int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cwd < 0 || chdir(tmpl) != 0) {
        rc = fetch_errf(err, "%s: cannot enter: %s", tmpl, strerror(errno));
    } else {
        rc = extract_here(archive, label, lim, err);
        if (fchdir(cwd) != 0 && rc == 0)
            rc = fetch_errf(err, "cannot return to the working directory: %s", strerror(errno));
    }
    if (cwd >= 0)
        close(cwd);
    if (rc == 0)
        rc = audit(tmpl, "", label, err);
    if (rc == 0 && chmod(tmpl, 0755) != 0) /* mkdtemp made it private */
        rc = fetch_errf(err, "%s: %s", tmpl, strerror(errno));
    if (rc == 0 && fetch_find_engine_dir(tmpl, engine_rel) != 0)
        rc = fetch_errf(err, "%s: holds no llama-server or llama-bench", label);
    if (rc == 0 && manifest_name && manifest_text) {
        char *mpath = lvd_xasprintf("%s/%s", tmpl, manifest_name);
        rc = lvd_write_file_atomic(mpath, manifest_text, strlen(manifest_text), err);
        free(mpath);
    }
    if (rc == 0 && renameat2(AT_FDCWD, tmpl, AT_FDCWD, target, RENAME_NOREPLACE) != 0)
        rc = fetch_errf(err, "%s: cannot rename into place: %s", target, strerror(errno));
    if (rc != 0) {
        lvd_rm_rf(tmpl);
        free(*engine_rel);
        *engine_rel = NULL;
    }
    free(tmpl);
    return rc;
}
