/* names.h: the names a llama.cpp build goes by and their order. Every build
 * of master is a release tagged b<N> (N = the commit count: release.yml's
 * get-tag-name); since Aug 2026 some commits are also SemVer releases tagged
 * vX.Y.Z (make-release.yml), whose only asset is nightly-tag.txt naming the
 * b<N> release of the same commit, which carries the archives. Builds are
 * ordered by N whichever name a user gave. Not for asset names (asset.h) nor
 * for asking the release API (fetch/release.h). */
#ifndef LVD_BUILDS_NAMES_H
#define LVD_BUILDS_NAMES_H

#include "common/types.h"

#include <stddef.h>

/* The asset of a SemVer release that names its build (make-release.yml). */
#define BUILDS_NIGHTLY_TAG_ASSET "nightly-tag.txt"

/* From this build on release.yml publishes every b<N> release as a
 * prerelease ("ci : release clean-up", 2026-08-21, first in b10573): the
 * flag says nothing of such a build, while before it a prerelease was one. */
#define BUILDS_PRERELEASE_FROM 10573

/* b10715 -> 10715; -1 when not a build tag (builds_valid). */
long builds_number(const char *build);

/* 1 when name is a SemVer release tag: v<major>.<minor>.<patch>, each 1-6
 * digits (make-release-checks.sh's VERSION). */
int builds_semver_valid(const char *name);

/* 1 when name is a build tag or a SemVer release tag. */
int builds_name_valid(const char *name);

/* The rule for which releases of the API's list are builds (lvd fetch
 * --latest, lvd bisect's candidates): a build tag, not a draft, and not a
 * prerelease unless its number is BUILDS_PRERELEASE_FROM or more. */
int builds_release_is_build(const char *tag, int draft, int prerelease);

/* The build tag name stands for among engines[0..n): a build tag is itself;
 * a SemVer release tag is the build of the engine fetched as that release
 * (lvd_engine.release), the newest registered when several. 1 with buf
 * filled, 0 when it cannot be told here (buf ""). */
int builds_resolve(const char *name, const lvd_engine *engines, size_t n, char *buf, size_t len);

/* The build tag nightly-tag.txt holds: text[0..len) is one b<N> tag with
 * blanks and line ends around it, nothing else. 0 with buf filled, -1
 * otherwise. */
int builds_nightly_tag_parse(const char *text, size_t len, char *buf, size_t buflen);

#endif
