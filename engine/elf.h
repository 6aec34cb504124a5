/* elf.h: the two things an engine's identity needs from an ELF file's
 * dynamic section: the libraries it names (DT_NEEDED) and where it looks for
 * them (DT_RPATH, DT_RUNPATH). Read with bounds checks on every offset and
 * size the file states; nothing is loaded or executed. Not for deciding which
 * files make up an engine (engine/files.h). */
#ifndef LVD_ENGINE_ELF_H
#define LVD_ENGINE_ELF_H

#include "common/util.h"

#include <stddef.h>

typedef struct engine_elf_dyn {
    char **needed;    /* DT_NEEDED names, in file order */
    size_t n_needed;
    char **runpath;   /* DT_RPATH and DT_RUNPATH entries, split at ':' */
    size_t n_runpath;
} engine_elf_dyn;

/* Reads path's dynamic section (found through the section headers: the
 * SHT_DYNAMIC section and the string table it links to), for 32- and 64-bit
 * files of either byte order. Returns 0 with out filled (free with
 * engine_elf_free), 1 when path is not an ELF file or has no dynamic
 * section (out empty), -1 with err when it cannot be read or states an
 * offset or size outside the file (out empty). */
int engine_elf_read(const char *path, engine_elf_dyn *out, lvd_err *err);
void engine_elf_free(engine_elf_dyn *d);

#endif
