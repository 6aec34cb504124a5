/* job.h: the nightly job as lvd-nightly runs it: its configuration, the job
 * lock, the store every step gets (the local fallback store when a
 * PostgreSQL store cannot be opened), the device lock held all night, the
 * run (nightly.h) and what it prints. Not for the steps themselves
 * (nightly.c). */
#ifndef LVD_NIGHT_JOB_H
#define LVD_NIGHT_JOB_H

typedef struct night_job_opts {
    const char *tool;   /* the name error lines start with */
    const char *config; /* --config FILE; NULL: the defaults */
    const char *store;  /* --store; NULL: $LVD_STORE, else the XDG default */
    int json;           /* print the steps as JSON (else one line each as they end) */
} night_job_opts;

/* Runs the night; its exit status (LVD_EXIT_*). */
int night_job(const night_job_opts *o);

#endif
