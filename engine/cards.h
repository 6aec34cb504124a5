/* cards.h: which devices of one --list-devices listing are the same physical
 * card seen through two backends of one binary (CUDA0 and Vulkan0 of one
 * H200), and the sets of distinct cards an arm may split a model across.
 * Not for parsing the listing (devices.h) nor for choosing arms (bench/). */
#ifndef LVD_ENGINE_CARDS_H
#define LVD_ENGINE_CARDS_H

#include "common/types.h"

#include <stddef.h>

/* Memory totals of one card as two backends report it differ a little (the
 * H200 of tests/fixtures/llama.cpp/gpu-h200: CUDA 143155 MiB, Vulkan 143771
 * MiB, 0.43 %): totals within this many per mille are "the same". */
#define ENGINE_CARD_TOTAL_PERMILLE 20

/* For each device i, card[i] = the index of the first listed device that is
 * the same physical card (card[i] == i: its own card). The rule: two devices
 * of different backends are one card when their PCI bus ids are both known
 * and equal (the listing does not print one today: bus[] may be NULL, or an
 * entry ""), else when their names are equal (caseless, blanks trimmed, a
 * driver's trailing tag on one of them dropped: ROCm's "Radeon 8060S
 * Graphics" is Vulkan's "Radeon 8060S Graphics (RADV STRIX_HALO)"): first
 * among pairs whose totals are both known and within
 * ENGINE_CARD_TOTAL_PERMILLE, then among the devices still unmatched whatever
 * their totals (one chip of unified memory is 98304 MiB to ROCm and 114163
 * MiB to Vulkan); two devices of one backend are always two cards (two
 * identical H200s are CUDA0 and CUDA1); each device is matched once, in
 * listing order (CUDA0-Vulkan0, CUDA1-Vulkan1 on a box of two identical
 * cards seen by both). */
void engine_cards(const lvd_device *devs, size_t n, const char *const *bus, size_t *card);

/* The number of distinct cards among devs (engine_cards' rule). */
size_t engine_cards_count(const lvd_device *devs, size_t n);

#endif
