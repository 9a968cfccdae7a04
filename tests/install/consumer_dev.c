/*
 * A development build of a game against an installed libkiln-dev: kiln-dev.pc
 * and kiln::runtime_dev give it KILN_RUNTIME_DEV=1, so kiln/manager.h declares
 * the development calls. It creates a manager and connects it to a cook
 * server that is not running (the socket path given): the call must exist,
 * link, and fail with KILN_ERR_IO and a message. test_install.sh builds it
 * with pkg-config and with the CMake package.
 */
#include <kiln/manager.h>

#include <stdio.h>

#if !defined(KILN_RUNTIME_DEV) || !KILN_RUNTIME_DEV
#error "consumer_dev needs KILN_RUNTIME_DEV=1, from kiln-dev.pc or kiln::runtime_dev"
#endif

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: consumer_dev <socket path where no server listens>\n");
        return 2;
    }
    kiln_manager_desc desc = {0};
    kiln_manager *manager = NULL;
    kiln_error err;
    if (kiln_manager_create(&desc, &manager, &err) != KILN_OK) {
        fprintf(stderr, "consumer_dev: %s\n", err.message);
        return 1;
    }
    kiln_result result = kiln_manager_connect_cooker(manager, argv[1], &err);
    printf("kiln_manager_connect_cooker: %s: %s\n", kiln_result_str(result), err.message);
    kiln_manager_destroy(manager);
    return result == KILN_ERR_IO && err.message[0] != '\0' ? 0 : 1;
}
