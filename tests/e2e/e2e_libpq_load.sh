#!/usr/bin/env bash
# e2e_libpq_load.sh: libpq is loaded at run time, only when a PostgreSQL
# store is opened (store/store_pg_lib.c): no tool names it among its NEEDED
# libraries (each start would load it and the twenty libraries it pulls in),
# and a missing libpq is one line naming the store and the package, exit 4.
. "$(dirname "$0")/e2e_lib.sh"
e2e_needs LVD_BIN

no_tool_links libpq

URI='postgresql://nobody@/lvd_no_such_db?host=/nonexistent'
LVD_LIBPQ_LIBRARY=$tmp/no-such-libpq.so.5 expect_exit 4 \
  "postgresql://nobody@/lvd_no_such_db?host=/nonexistent: a PostgreSQL store needs libpq.so.5 (Debian package libpq5)" \
  "$LVD_BIN/lvd-store" --store "$URI" info
LVD_LIBPQ_LIBRARY=$tmp/no-such-libpq.so.5 expect_exit 4 "needs libpq.so.5" \
  "$LVD_BIN/lvd-select" --store "$URI" --model "$tmp/m.gguf"
e2e_finish
