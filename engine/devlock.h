/* devlock.h: the host's device lock. Every process that runs an engine (lvd
 * bench, lvd check, lvd probe; the nightly for its whole night) holds it, so
 * two measurements never share a device: a second one waits (bounded) or
 * refuses with a line naming the holder's pid. Not for the nightly's own
 * one-job-at-a-time lock (nightly/lock.c), and not a scheduler.
 *
 * One lock per host and store, not per device selector: the selectors of
 * different backends name the same card (Vulkan0 and CUDA0 are one GPU) and a
 * CPU arm loads the host a GPU arm's timings depend on, so finer locks would
 * let two measurements share hardware.
 *
 * The file: $LVD_LOCK_DIR/devices.lock when LVD_LOCK_DIR is set (one lock for
 * every store and user of the host: point it at a shared directory such as
 * /run/lock/llama-verdict), else STORE.devices.lock beside the store, where
 * the nightly and a hand-started lvd bench on the same store meet (the
 * runtime dir is per user and per login, and unset under cron). It holds
 * "PID TOOL EPOCH" of the process that took it. The lock is flock(2) on an fd
 * that children inherit (named in LVD_DEVLOCK_FD): a tool the holder starts
 * holds it already, and an engine process left behind keeps it held until
 * it is gone. */
#ifndef LVD_ENGINE_DEVLOCK_H
#define LVD_ENGINE_DEVLOCK_H

#include "common/util.h"

#include <stdint.h>

#define ENGINE_DEVLOCK_ENV "LVD_DEVLOCK_FD"

typedef struct engine_devlock {
    int fd;                /* -1 when not held */
    int inherited;         /* held through the fd a parent passed down */
    char *path;
} engine_devlock;

/* The lock file for store (see above); malloc'd. */
char *engine_devlock_path(const char *store);

/* Takes the lock for tool. wait_ms 0 refuses at once when another process
 * holds it, > 0 waits up to that long (saying so once on stderr). Returns 0
 * (held), 1 with err "the devices are in use: pid N (TOOL, since T) holds
 * PATH" when busy, -1 with err when the file cannot be opened. */
int engine_devlock_take(const char *store, const char *tool, int64_t wait_ms, engine_devlock *out,
                        lvd_err *err);
/* Lets go (closing the fd: a child still holding it keeps the lock). */
void engine_devlock_release(engine_devlock *l);

/* A tool's take: 0 held, else the one error line printed and the exit status
 * to end with (LVD_EXIT_LOCKED busy, LVD_EXIT_FAIL cannot open). */
int engine_devlock_tool(const char *tool, const char *store, int64_t wait_ms, engine_devlock *out);

#endif
