/* resume.h: how a night knows the one before it was interrupted, and resumes
 * it. A night records itself beside the store (STORE.nightly.state: its
 * session, pid and the session's first start) when it starts and removes the
 * record when it ends; a record found at the start of a night is a night that
 * never ended (killed, OOM, power). Its bench session is resumed (the benches
 * get --session ID --resume: its recorded runs count, nothing is measured
 * twice) when it started within resume_within; else a new session starts and
 * the note says why. Not for taking the locks (lock.h). */
#ifndef LVD_NIGHT_RESUME_H
#define LVD_NIGHT_RESUME_H

#include "common/util.h"

#include <stdint.h>

typedef struct night_resume {
    char *session;      /* this night's session: the interrupted one's, or fresh */
    int resumed;        /* 1: continuing an interrupted night's session */
    char *note;         /* what happened to the last night, one line; NULL when it ended */
} night_resume;

/* Reads the record beside store, decides (see above; resume_within_s 0: never
 * resume), and writes this night's record. fresh is the session id a new
 * night gets; now the clock (lvd_now). 0, or -1 with err when the record
 * cannot be written. */
int night_resume_begin(const char *store, const char *fresh, int64_t now, int64_t resume_within_s,
                       night_resume *out, lvd_err *err);
/* The night ended (whatever its steps did): removes the record. */
void night_resume_end(const char *store);
void night_resume_free(night_resume *r);

#endif
