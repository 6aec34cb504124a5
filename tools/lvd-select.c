/* lvd-select.c: the `lvd select` tool (select/select_cli.c; `lvd select`
 * runs the same function inside the dispatcher). */
#include "select/select_cli.h"

int main(int argc, char **argv) { return sel_cli_main(argc, argv); }
