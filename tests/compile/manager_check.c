/* kiln/manager.h compiles on its own as C11; a handle initialises a static. */
#include "kiln/manager.h"
static const kiln_handle kiln_manager_check_handle = KILN_HANDLE("props/crate");
int kiln_manager_header_check_c(void);
int kiln_manager_header_check_c(void) {
    return (int)(sizeof(kiln_ref) + (kiln_manager_check_handle & 1u));
}
