/* hunt.h: the nightly's regression hunt: when the newest pin decision names
 * a regression ("regression: tg128 on vulkan -6.2 % ..."), the lvd bisect
 * command line between the pinned build (good) and the candidate (bad) on
 * that test and backend, for the config's first model (config keys bisect =
 * on|off, bisect_budget). Not for running it (nightly.c runs it as a step). */
#ifndef LVD_NIGHT_HUNT_H
#define LVD_NIGHT_HUNT_H

#include "nightly/config.h"

#include <stddef.h>

/* The test and backend a pin rule names as a regression; 0, or -1 when it
 * names none. */
int night_regression_of(const char *rule, char *test, size_t tn, char *backend, size_t bn);

/* The argv (NULL-terminated, *n words; free with lvd_strv_free) and the
 * step's timeout, or NULL when bisect is off or no regression was named. */
char **night_bisect_argv(const night_config *c, const char *tools_dir, const char *store_path, size_t *n,
                         int *timeout_s);

#endif
