/* cards.c: one physical card seen by two backends is one card (cards.h).
 * Pure: no I/O. */
#include "engine/cards.h"

#include "common/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The span of s without leading and trailing blanks. */
static void trim(const char **s, size_t *n)
{
    while (isspace((unsigned char)**s))
        (*s)++;
    *n = strlen(*s);
    while (*n && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

/* n less a trailing " (...)" group (Mesa's "(RADV STRIX_HALO)"), or n. */
static size_t without_tag(const char *s, size_t n)
{
    if (!n || s[n - 1] != ')')
        return n;
    const char *open = NULL;
    for (const char *p = s; p < s + n; p++)
        if (*p == '(')
            open = p;
    if (!open || open == s || !isspace((unsigned char)open[-1]))
        return n;
    size_t k = (size_t)(open - s);
    while (k && isspace((unsigned char)s[k - 1]))
        k--;
    return k;
}

/* Caseless equality ignoring blanks at the ends, and the driver's tag one
 * backend adds to the name the other prints bare. */
static int same_name(const char *a, const char *b)
{
    size_t la, lb;
    trim(&a, &la);
    trim(&b, &lb);
    size_t ta = without_tag(a, la), tb = without_tag(b, lb);
    const size_t ka[] = {la, ta, la, ta}, kb[] = {lb, lb, tb, tb};
    for (size_t i = 0; i < 4; i++)
        if (ka[i] > 0 && ka[i] == kb[i] && strncasecmp(a, b, ka[i]) == 0)
            return 1;
    return 0;
}

static int same_total(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0)
        return 0;
    int64_t d = a > b ? a - b : b - a;
    int64_t big = a > b ? a : b;
    return d * 1000 <= big * ENGINE_CARD_TOTAL_PERMILLE;
}

/* The rule of cards.h for one pair of devices of different backends; by_total:
 * the first pass, where totals must agree too. */
static int one_card(const lvd_device *a, const char *bus_a, const lvd_device *b, const char *bus_b, int by_total)
{
    if (bus_a && *bus_a && bus_b && *bus_b)
        return strcasecmp(bus_a, bus_b) == 0;
    return same_name(a->name, b->name) && (!by_total || same_total(a->total_mib, b->total_mib));
}

/* 1 when card c already holds a device other than skip of backend (NULL: of
 * any backend). */
static int holds(const lvd_device *devs, size_t n, const size_t *card, size_t c, size_t skip, const char *backend)
{
    for (size_t k = 0; k < n; k++)
        if (k != skip && card[k] == c && (!backend || !strcmp(devs[k].backend, backend)))
            return 1;
    return 0;
}

void engine_cards(const lvd_device *devs, size_t n, const char *const *bus, size_t *card)
{
    for (size_t i = 0; i < n; i++)
        card[i] = i;
    for (int pass = 1; pass >= 0; pass--) /* name and total first, then name alone */
        for (size_t i = 0; i < n; i++) {
            if (card[i] != i)
                continue; /* already matched to an earlier card */
            for (size_t j = i + 1; j < n; j++) {
                if (card[j] != j || !strcmp(devs[i].backend, devs[j].backend) || holds(devs, n, card, j, j, NULL))
                    continue; /* matched already, or a card of its own devices: never merged */
                /* a card holds at most one device per backend */
                if (!holds(devs, n, card, i, n, devs[j].backend) &&
                    one_card(&devs[i], bus ? bus[i] : NULL, &devs[j], bus ? bus[j] : NULL, pass))
                    card[j] = i;
            }
        }
}

size_t engine_cards_count(const lvd_device *devs, size_t n)
{
    if (n == 0)
        return 0;
    size_t *card = lvd_xcalloc(n, sizeof *card);
    engine_cards(devs, n, NULL, card);
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += card[i] == i;
    free(card);
    return count;
}
