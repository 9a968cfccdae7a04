/* main.c — the kiln executable: the CLI library's cli_main (commands.c). */
#include <signal.h>

#include "cli/cli.h"

int main(int argc, char **argv) {
    /* Past a file size limit (ulimit -f) a write fails with EFBIG, which each
     * writer reports as an error naming its file; the default SIGXFSZ would
     * kill the build with no word about which file. */
    signal(SIGXFSZ, SIG_IGN);
    return cli_main(argc, argv);
}
