/* main.c — the kiln executable: the CLI library's cli_main (commands.c). */
#include "cli/cli.h"

int main(int argc, char **argv) {
    return cli_main(argc, argv);
}
