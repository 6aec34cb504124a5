/* lock.h: the nightly's job lock (STORE.nightly.lock, flock, close-on-exec):
 * one nightly per store. It dies with the nightly; what keeps a next night off
 * the devices until every process of this one is gone is the device lock
 * (engine/devlock.h), which lvd-nightly takes after this one, holds all night
 * and passes to every step. Not for what a night does (nightly.h). */
#ifndef LVD_NIGHT_LOCK_H
#define LVD_NIGHT_LOCK_H

#include "common/util.h"

/* Takes the nightly lock beside the store (STORE.nightly.lock, flock). A
 * second job gets -1 with "another nightly is running (pid N)". *fd stays
 * open for the job's life; night_unlock releases it. */
int night_lock(const char *store, int *fd, lvd_err *err);
void night_unlock(int fd);

#endif
