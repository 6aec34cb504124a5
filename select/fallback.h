/* fallback.h: lvd select's local fallback copy: a SQLite file of
 * this host's verdicts and what reading them needs (store/fleetdb.h
 * store_fallback_refresh), named by $LVD_STORE_FALLBACK, that `lvd select
 * --record` (the nightly's select step) refreshes after each recorded
 * verdict, and that a plain `lvd select` opens when the store itself cannot
 * be opened (an unreachable database server, a missing or broken file), so a
 * service start never depends on the network. Not for the copy's contents
 * (store/store_fallback.c). */
#ifndef LVD_SEL_FALLBACK_H
#define LVD_SEL_FALLBACK_H

#include "common/util.h"
#include "store/store.h"

/* $LVD_STORE_FALLBACK, or NULL when unset or empty. */
const char *sel_fallback_path(void);

/* Refreshes the configured copy from s for host (NULL: this machine). 0 when
 * refreshed or none is configured, -1 with err (the copy as it was). */
int sel_fallback_refresh(store *s, const char *host, lvd_err *err);

/* After sel_open_identify (select.h) failed on primary with *exit_code
 * LVD_EXIT_STORE: opens the configured copy read-only instead and
 * identifies model there. Returns 1 with *s and *artifact filled and *why
 * (malloc'd) the primary's error; 0 when no copy applies (none configured,
 * it is primary itself, or the failure was not the store's: err and
 * *exit_code unchanged); -1 when the copy failed too (err names both). */
int sel_fallback_open(const char *primary, const char *model, store **s, store_artifact *artifact,
                      int *exit_code, char **why, lvd_err *err);

#endif
