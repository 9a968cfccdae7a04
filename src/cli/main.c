/* main.c — the kiln executable: the CLI library's cli_main (commands.c). */
#include <signal.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/cli.h"

int main(int argc, char **argv) {
    /* Past a file size limit (ulimit -f) a write fails with EFBIG, which each
     * writer reports as an error naming its file; the default SIGXFSZ would
     * kill the build with no word about which file. */
    signal(SIGXFSZ, SIG_IGN);
#ifdef __GLIBC__
    /* A large cook allocates and frees buffers of tens of MB stage after
     * stage. glibc gives each its own mapping past 32 MB (and trims the heap
     * behind it), so every stage faulted fresh zeroed pages in and each free
     * unmapped them: about a third of a 1M-triangle cook's page faults.
     * Kept in the heap instead, a freed buffer's pages serve the next stage.
     * The resident size stays near the build's peak, which the memory gate
     * (--memory-limit) already budgets for. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    return cli_main(argc, argv);
}
