/* unpack.h: safe extraction of a release archive (tar.gz or zip) with
 * libarchive into a temporary directory beside the target, renamed into place
 * only when complete: a bench dir is complete or absent, never half. Entries
 * that escape the root (`..`, absolute paths, symlinks or hardlinks pointing
 * outside), device files, fifos and sockets, and absurd sizes are refused.
 * Not for downloading or verifying the archive. */
#ifndef LVD_FETCH_UNPACK_H
#define LVD_FETCH_UNPACK_H

#include "common/util.h"

#include <stdint.h>

typedef struct fetch_limits {
    uint64_t max_entry_bytes; /* one entry, declared or written */
    uint64_t max_total_bytes; /* all entries together */
    uint64_t max_entries;
} fetch_limits;

/* 4 GiB per entry, 32 GiB in all, 100000 entries: several times the largest
 * upstream archive (the Windows CUDA zips, a few hundred MiB unpacked). */
void fetch_limits_default(fetch_limits *l);

/* 1 when an archive entry's name stays inside the root: relative, non-empty,
 * no ".." component. */
int fetch_entry_name_safe(const char *name);

/* 1 when a symlink named entry (a path relative to the root) with the given
 * target resolves inside the root, judged lexically; absolute targets never do. */
int fetch_link_target_safe(const char *entry, const char *target);

/* Extracts archive (called label in messages; NULL: its path) into a fresh temporary directory beside target, finds the
 * directory holding llama-server or llama-bench (top level, `build/bin/`,
 * `llama-bNNNN/` ...), writes manifest_text (may be NULL) as manifest_name in
 * the root, and renames the whole into target, which must not exist. On any
 * error nothing is left: neither target nor the temporary directory.
 * *engine_rel receives the engine directory relative to target ("" for the
 * root), malloc'd. */
int fetch_unpack(const char *archive, const char *label, const char *target,
                 const fetch_limits *lim, const char *manifest_name, const char *manifest_text,
                 char **engine_rel, lvd_err *err);

/* The directory under root (relative, malloc'd; "" for root itself) that holds
 * llama-server or llama-bench as a regular file, searched breadth-first a few
 * levels deep. 1 when there is none. */
int fetch_find_engine_dir(const char *root, char **rel);

#endif
