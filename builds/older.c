/* older.c: a local build older than the pin (see older.h). Not for the pin
 * file's format. */
#include "builds/older.h"

#include "builds/names.h"
#include "builds/pinfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int builds_local_older(const lvd_engine *e, const char *pin_build, char *msg, size_t len)
{
    if (len)
        msg[0] = '\0';
    long have = builds_number(e->build), pin = builds_number(pin_build);
    if (strcmp(lvd_engine_family(e), LVD_FAMILY_MAINLINE)) /* the pin is mainline's: another count */
        return 0;
    if (!e->origin || strcmp(e->origin, "registered") || have < 0 || pin < 0 || have >= pin)
        return 0;
    snprintf(msg, len,
             "%s is older than the pin %s: rebuild at %s (git checkout %s, build, then lvd fetch --register"
             " %s --build %s)", e->name, pin_build, pin_build, pin_build, e->dir ? e->dir : "DIR", pin_build);
    return 1;
}

/* The pinned build of the shipped pin file into buf, as the file names it;
 * 1 when there is one, 0 when there is no readable pin file (buf ""). */
static int pin_build_default(char *buf, size_t len)
{
    buf[0] = '\0';
    char *path = builds_pin_default_path();
    if (!path)
        return 0;
    builds_pin p;
    lvd_err err = {{0}};
    int ok = builds_pin_load(path, &p, &err) == 0;
    free(path);
    if (!ok)
        return 0;
    const char *b = builds_pin_build(&p);
    if (b)
        snprintf(buf, len, "%s", b);
    builds_pin_free(&p);
    return buf[0] != '\0';
}

int builds_pin_default_resolved(const lvd_engine *engines, size_t n, char *buf, size_t len)
{
    char named[64];
    buf[0] = '\0';
    return pin_build_default(named, sizeof named) && builds_resolve(named, engines, n, buf, len);
}
