/* benchout_internal.h: the seam between the llama-bench output parser's
 * files (benchout.c reads the formats, benchfind.c finds where the output
 * begins among log lines), private to them; everyone else calls
 * benchio/benchout.h. */
#ifndef LVD_BENCHOUT_INTERNAL_H
#define LVD_BENCHOUT_INTERNAL_H

#include "benchio/benchout.h"

#include <stddef.h>

/* Finds where llama-bench's output begins in text: its format (want, or
 * detected when want is BENCHIO_FMT_AUTO) and the offset of its first line in
 * *start. The non-blank lines before it are counted into rows as skipped. 0,
 * or -1 with err naming name (nothing but blanks or log, markdown, csv, an
 * SQLite database). With want given, a text with no line of that format
 * starts at its beginning (the reader then says what is wrong). */
int benchio_find_output(const char *text, size_t len, benchio_format want, const char *name, benchio_format *fmt,
                      size_t *start, benchio_rows *rows, lvd_err *err);

/* Counts the line [p, eol) as skipped in rows, keeping the first one seen. */
void benchio_skip_line(benchio_rows *rows, const char *p, const char *eol);

/* 1 when [p, end) holds only white space. */
int benchio_only_space(const char *p, const char *end);

#endif
