/* report.h: what lvd serve prints: a table per session (each arm's launch
 * line, then per arm and load: requests, errors, time to first token,
 * inter-token latency and per-request t/s at p50 / p95 / p99, aggregate
 * t/s, time to healthy) and the same as JSON. Not for measuring. */
#ifndef LVD_SERVE_REPORT_H
#define LVD_SERVE_REPORT_H

#include "serve/session.h"

#include <stdio.h>

struct cJSON;

/* The table of s for model (its name as given) to f. */
void serve_report_table(FILE *f, const serve_session *s, const char *model);
/* {"model", "artifact", "session", "rounds", "stop", "stop_why", "arms": [{"engine", "build",
 * "backend", "from", "argv", "env", "line"}], "cells": [{"arm", "load", "runs", "runs_ok",
 * "excluded", "rank", "figures": serve_figures_json}]}. Caller owns it. */
struct cJSON *serve_report_json(const serve_session *s, const char *model);
/* One progress line of a run that ended ("b9749-cpu np 4 4:128:32: 16 requests, TTFT p50 12.3 ms,
 * 410.2 t/s aggregate" or "...: failed: WHY"). */
void serve_report_run(FILE *f, const serve_session *s, const serve_cell *c, const serve_figures *fig,
                      const char *failure);

#endif
