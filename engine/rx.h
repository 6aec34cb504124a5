/* rx.h: the PCRE2 helpers the engine's line parsers share (engine/devices.c,
 * engine/alloclog.c, engine/version.c): one compiled pattern with its match
 * data, a match over one line, a captured group copied with a bound, and the
 * walk over a tool's output line by line, CRLF and llama.cpp's log prefix
 * taken off. Not for anything but matching. */
#ifndef LVD_ENGINE_RX_H
#define LVD_ENGINE_RX_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include "common/util.h"

#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

typedef struct engine_rx {
    pcre2_code *code;
    pcre2_match_data *md;
} engine_rx;

/* Compiles pattern with PCRE2 options opts; what names the parser in the
 * error. 0, or -1 with err. */
int engine_rx_compile(engine_rx *r, const char *pattern, uint32_t opts, const char *what, lvd_err *err);
void engine_rx_free(engine_rx *r);
/* 1 when s[0..len) matches. */
int engine_rx_match(engine_rx *r, const char *s, size_t len);
/* Group g of the last match into buf; 0, or -1 when it does not fit. */
int engine_rx_group(engine_rx *r, const char *s, int g, char *buf, size_t len);

/* Matches s[0..len) against a pattern fixed in the code, compiled once into
 * *re (a static of the caller; a pattern that does not compile, or no memory
 * for a match, aborts naming what). 1 with *end (may be NULL) the end of the
 * match, else 0. */
int engine_rx_fixed(pcre2_code **re, const char *pattern, uint32_t opts, const char *what, const char *s,
                    size_t len, size_t *end);

/* The length of llama.cpp's log prefix at the start of line[0..len) (0 when
 * none): what common/log.cpp writes before a message when prefixes or
 * timestamps are on, colour codes, "0.00.126.784 " (minutes, seconds,
 * milliseconds, microseconds since start) and a level letter (I W E D) with
 * its space: "0.00.126.784 I ". */
size_t engine_rx_log_prefix(const char *line, size_t len);

/* Calls fn for each line of text: without its "\n" or "\r\n" and without a
 * log prefix (engine_rx_log_prefix). A non-zero return from fn stops the walk
 * and is returned; else 0. */
typedef int (*engine_rx_line_fn)(void *ctx, const char *line, size_t len);
int engine_rx_each_line(const char *text, engine_rx_line_fn fn, void *ctx);

#endif
