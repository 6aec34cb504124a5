/* names.c: build tags, SemVer release tags, their order and what a SemVer
 * name stands for (see names.h). Pure: no I/O. */
#include "builds/names.h"

#include "builds/asset.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long builds_number(const char *build)
{
    return builds_valid(build) ? strtol(build + 1, NULL, 10) : -1;
}

/* The digits at *p (1-6 of them), p moved past them; 0 when none or more. */
static int digits(const char **p)
{
    size_t n = strspn(*p, "0123456789");
    *p += n;
    return n >= 1 && n <= 6;
}

int builds_semver_valid(const char *name)
{
    if (!name || name[0] != 'v')
        return 0;
    const char *p = name + 1;
    return digits(&p) && *p++ == '.' && digits(&p) && *p++ == '.' && digits(&p) && *p == '\0';
}

int builds_name_valid(const char *name)
{
    return builds_valid(name) || builds_semver_valid(name);
}

int builds_release_is_build(const char *tag, int draft, int prerelease)
{
    long n = builds_number(tag);
    return n >= 0 && !draft && (!prerelease || n >= BUILDS_PRERELEASE_FROM);
}

int builds_resolve(const char *name, const lvd_engine *engines, size_t n, char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    if (builds_valid(name)) {
        snprintf(buf, len, "%s", name);
        return 1;
    }
    const lvd_engine *best = NULL;
    for (size_t i = 0; builds_semver_valid(name) && i < n; i++)
        if (engines[i].release && !strcmp(engines[i].release, name) && builds_valid(engines[i].build) &&
            (!best || engines[i].created_at > best->created_at ||
             (engines[i].created_at == best->created_at && engines[i].id > best->id)))
            best = &engines[i];
    if (!best)
        return 0;
    snprintf(buf, len, "%s", best->build);
    return 1;
}

int builds_nightly_tag_parse(const char *text, size_t len, char *buf, size_t buflen)
{
    size_t a = 0, b = len;
    while (a < b && isspace((unsigned char)text[a]))
        a++;
    while (b > a && isspace((unsigned char)text[b - 1]))
        b--;
    char tag[32];
    if (b - a == 0 || b - a >= sizeof tag || memchr(text + a, '\0', b - a))
        return -1;
    memcpy(tag, text + a, b - a);
    tag[b - a] = '\0';
    if (!builds_valid(tag))
        return -1;
    snprintf(buf, buflen, "%s", tag);
    return 0;
}
