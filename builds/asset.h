/* asset.h: llama.cpp's release naming. A build number plus a flavour names
 * exactly one release asset (`llama-b10715-bin-ubuntu-vulkan-x64.tar.gz`);
 * flavours are a fixed, named list taken from upstream's release workflow,
 * never guessed. Not for talking to the release API (see release.h). */
#ifndef LVD_BUILDS_ASSET_H
#define LVD_BUILDS_ASSET_H

#include "common/opt.h"
#include "common/util.h"

#include <stddef.h>

/* Most candidate asset names one (build, flavour) can have: the current
 * `.tar.gz` and the `.zip` older releases used. */
#define BUILDS_MAX_ASSET_NAMES 2

/* 1 when build is a llama.cpp build tag: ^b[0-9]+$ (at most 12 digits). */
int builds_valid(const char *build);

/* The canonical spelling of a known flavour ("bin-ubuntu-vulkan-x64"), accepting
 * it with or without the "bin-" prefix; NULL when the flavour is not known. The
 * returned string is static. */
const char *builds_flavour_canonical(const char *flavour);

/* Every known flavour, comma-separated, for error messages; malloc'd. */
char *builds_flavour_list(void);

/* The entries of a build and a flavour in a tool's option table
 * (common/opt.h): the value as given, into a const char * field, when it is a
 * build tag or a known flavour. */
int builds_opt_build(const lvd_opt *o, void *field, const char *arg, lvd_err *err);
int builds_opt_flavour(const lvd_opt *o, void *field, const char *arg, lvd_err *err);
#define BUILDS_OPT_FLAVOUR .spell = "--flavour, --flavor", .arg = "F", .kind = LVD_OPT_CALL, .call = builds_opt_flavour

/* The asset names a release may carry for (build, flavour), the current naming
 * first: names[i] are malloc'd, *n is set. Fails with a message naming the
 * build or listing the known flavours when either is not valid. */
int builds_asset_names(const char *build, const char *flavour, char *names[BUILDS_MAX_ASSET_NAMES],
                      size_t *n, lvd_err *err);

/* Frees what builds_asset_names returned. */
void builds_asset_names_free(char *names[BUILDS_MAX_ASSET_NAMES], size_t n);

#endif
