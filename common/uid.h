/* uid.h: identities unique across machines: random hex ids (a run's uid)
 * and session names that carry the host, so that stores written on
 * different boxes merge without confusing one row for another. */
#ifndef LVD_UID_H
#define LVD_UID_H

#include <stddef.h>

/* The length of lvd_uid's text: 128 random bits as lowercase hex. */
#define LVD_UID_LEN 32

/* Fills buf (at least LVD_UID_LEN + 1 bytes) with 128 bits from
 * /dev/urandom as lowercase hex; aborts when the kernel gives none (no
 * identity is better than a guessable or repeated one). */
void lvd_uid(char buf[LVD_UID_LEN + 1]);

/* A new session name unique across boxes: "PREFIX-STAMP-HOST-RAND" where
 * STAMP is what the caller passes (a time), HOST this machine's name
 * (lvd_hostname) and RAND 8 random hex digits. malloc'd. */
char *lvd_session_name(const char *prefix, const char *stamp);

#endif
