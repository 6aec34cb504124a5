/* files.h: an engine's identity: the set of files it runs (its launchers,
 * the shared libraries and backend modules they load), how that set is
 * recorded (a key of size, mtime and inode per file, stored with each probe
 * and in verdict fingerprints) and how a recorded set is compared with the
 * files on disk. The one definition every consumer uses: the probe cache
 * (engine/probe.c), the registered digest (engine/digest.h) and the
 * verdict's fingerprint (select/fingerprint.c). Not for hashing (digest.h)
 * nor for reading ELF (elf.h).
 *
 * The file set of engine directory DIR (engine_files_list):
 *   - the launchers DIR/llama-bench, llama-server, llama-perplexity and
 *     llama-cli that exist;
 *   - every shared library and backend module directly in DIR: a name
 *     ending in ".so" or holding ".so." (libllama.so.0, libggml-cpu.so.0,
 *     libggml-cuda.so, libggml-cpu-haswell.so);
 *   - for each $ORIGIN entry of the RPATH/RUNPATH of a file already in the
 *     set (e.g. $ORIGIN/../lib) that resolves to a directory inside the
 *     engine tree other than DIR: the files there that a file of the set
 *     names in DT_NEEDED, and the ggml backend modules there (libggml-*),
 *     repeated until no file is added. The engine tree is DIR, or DIR's
 *     parent when DIR is named "bin" (PREFIX/bin beside PREFIX/lib).
 * Only regular files count (a symlink counts as the file it points at);
 * entries are named by their path relative to DIR ("libggml-cpu.so.0",
 * "../lib/libllama.so") and sorted bytewise by that name. At most
 * ENGINE_FILES_MAX files. */
#ifndef LVD_ENGINE_FILES_H
#define LVD_ENGINE_FILES_H

#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

#define ENGINE_FILES_MAX 4096

typedef struct engine_file {
    char *rel;        /* relative to DIR: "llama-bench", "../lib/libllama.so" */
    char *path;       /* DIR/rel as found (symlinks not resolved) */
    int64_t size, mtime_ns, inode;  /* stat(2) of the file (through symlinks) */
} engine_file;

typedef struct engine_fileset {
    engine_file *v;   /* sorted by rel */
    size_t n;
    char **needed;    /* the distinct DT_NEEDED names of the set's ELF files */
    size_t n_needed;
    char **dirs;      /* the directories read for the set: DIR's realpath, then
                       * the RUNPATH ones (a watcher of the set stats them: an
                       * entry added, removed or renamed changes theirs) */
    size_t n_dirs;
} engine_fileset;

/* Lists the file set of dir (rules above) into out (free with
 * engine_fileset_free). A file that is not ELF (a script) is listed but
 * contributes no NEEDED or RUNPATH. Returns 0, or -1 with err when dir
 * cannot be read (out empty). An unreadable ELF file is listed as it is. */
int engine_files_list(const char *dir, engine_fileset *out, lvd_err *err);
void engine_fileset_free(engine_fileset *fs);

/* The recorded form of a set: one line per file, "REL\tSIZE\tMTIME_NS\tINODE\n",
 * in the set's order. malloc'd ("" for an empty set). */
char *engine_files_key(const engine_fileset *fs);

/* What differs between a recorded key and the set now: the first file (in
 * name order) that changed, appeared or is gone. */
typedef enum { ENGINE_FILES_SAME, ENGINE_FILES_CHANGED, ENGINE_FILES_APPEARED, ENGINE_FILES_GONE,
               ENGINE_FILES_UNRECORDED } engine_files_kind;
typedef struct engine_files_change {
    engine_files_kind kind;
    char file[256];       /* REL of that file ("" for UNRECORDED) */
    const char *what;     /* CHANGED: "size", "mtime" or "inode" (the first that differs) */
} engine_files_change;

/* Compares key (NULL or unparsable: ENGINE_FILES_UNRECORDED) with fs.
 * Returns 1 when they describe the same files, 0 otherwise (*ch says how). */
int engine_files_compare(const char *key, const engine_fileset *fs, engine_files_change *ch);

/* The change as one phrase, "since WHEN" appended to the verb:
 *   "libggml-cpu.so.0 changed since the verdict (mtime)"
 *   "libggml-vulkan.so appeared since the verdict"
 *   "libggml-cpu.so.0 is gone since the verdict"
 *   "no file set was recorded with the verdict"   (WHEN "the verdict") */
void engine_files_change_text(const engine_files_change *ch, const char *when, char *buf, size_t len);

#endif
