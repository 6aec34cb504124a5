/* cards.c: one physical card seen by two backends is one card (cards.h).
 * Pure: no I/O. */
#include "engine/cards.h"

#include "common/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Caseless equality ignoring leading and trailing blanks. */
static int same_name(const char *a, const char *b)
{
    while (isspace((unsigned char)*a))
        a++;
    while (isspace((unsigned char)*b))
        b++;
    size_t la = strlen(a), lb = strlen(b);
    while (la && isspace((unsigned char)a[la - 1]))
        la--;
    while (lb && isspace((unsigned char)b[lb - 1]))
        lb--;
    return la == lb && la > 0 && strncasecmp(a, b, la) == 0;
}

static int same_total(int64_t a, int64_t b)
{
    if (a <= 0 || b <= 0)
        return 0;
    int64_t d = a > b ? a - b : b - a;
    int64_t big = a > b ? a : b;
    return d * 1000 <= big * ENGINE_CARD_TOTAL_PERMILLE;
}

/* The rule of cards.h for one pair of devices of different backends. */
static int one_card(const lvd_device *a, const char *bus_a, const lvd_device *b, const char *bus_b)
{
    if (bus_a && *bus_a && bus_b && *bus_b)
        return strcasecmp(bus_a, bus_b) == 0;
    return same_name(a->name, b->name) && same_total(a->total_mib, b->total_mib);
}

void engine_cards(const lvd_device *devs, size_t n, const char *const *bus, size_t *card)
{
    for (size_t i = 0; i < n; i++)
        card[i] = i;
    for (size_t i = 0; i < n; i++) {
        if (card[i] != i)
            continue; /* already matched to an earlier card */
        for (size_t j = i + 1; j < n; j++) {
            if (card[j] != j || !strcmp(devs[i].backend, devs[j].backend))
                continue;
            /* a card holds at most one device per backend */
            int taken = 0;
            for (size_t k = i + 1; k < n && !taken; k++)
                taken = k != j && card[k] == i && !strcmp(devs[k].backend, devs[j].backend);
            if (!taken && one_card(&devs[i], bus ? bus[i] : NULL, &devs[j], bus ? bus[j] : NULL))
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
