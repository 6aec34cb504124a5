/* import_report.h: one imported file's report (bench/import.h) as the
 * text lines or the JSON object `lvd store import` prints. */
#ifndef LVD_BENCH_IMPORT_REPORT_H
#define LVD_BENCH_IMPORT_REPORT_H

#include "bench/import.h"

#include <stdio.h>

struct cJSON;
/* The report as a new JSON object (the caller owns it). */
struct cJSON *bench_import_report_json(const char *file, const bench_import_report *rep);
/* The report as lines on f: the counts, then notes and warnings. */
void bench_import_report_print(FILE *f, const char *file, const bench_import_report *rep);

#endif
