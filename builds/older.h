/* older.h: a local build older than the pin. A registered
 * (locally built) engine whose build number is below the pinned build's was
 * not measured on the pin: it is flagged wherever it is shown (lvd probe,
 * lvd select --explain, the evidence page, the nightly's log), with the tag
 * to rebuild at; nothing is rebuilt. Not for reading the pin file
 * (pinfile.h) nor for fetching (fetch/). */
#ifndef LVD_BUILDS_OLDER_H
#define LVD_BUILDS_OLDER_H

#include "common/types.h"

#include <stddef.h>

/* The rule, in one place: 1 when e is a registered (origin "registered")
 * mainline llama.cpp engine (family LVD_FAMILY_MAINLINE: the pin names
 * mainline's builds, and another family's numbers count another history,
 * engine/family.h) and its build number (b10500 -> 10500) is below
 * pin_build's, with msg
 * "b10500-cuda is older than the pin b10715: rebuild at b10715 (git checkout
 * b10715, build, then lvd fetch --register DIR --build b10715)"; else 0
 * (msg ""). pin_build is a build tag: a pin naming a SemVer release is
 * resolved first (builds_resolve, names.h). An unreadable build or pin is
 * never older. */
int builds_local_older(const lvd_engine *e, const char *pin_build, char *msg, size_t len);

/* The build tag the shipped pin file (builds_pin_default_path:
 * $LVD_PIN_FILE, else the installed pin.default) pins, into buf: its build
 * (b10715), or the build a SemVer release it names (v0.4.1) stands for among
 * engines[0..n) (builds_resolve, names.h: the newest registered engine
 * fetched as that release). 1 when there is one, 0 when there is no readable
 * pin file or the release is none of the engines' (buf ""). */
int builds_pin_default_resolved(const lvd_engine *engines, size_t n, char *buf, size_t len);

#endif
