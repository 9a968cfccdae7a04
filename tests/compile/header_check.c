/* The public headers compile on their own as C11. */
#include "kiln/format.h"
#include "kiln/kiln.h"
_Static_assert(KILN_VERSION == KILN_VERSION_MAJOR * 10000 + KILN_VERSION_MINOR * 100 +
                                   KILN_VERSION_PATCH,
               "KILN_VERSION is the comparable number");
_Static_assert(sizeof KILN_VERSION_STRING >= 6, "KILN_VERSION_STRING is \"M.m.p\"");
int kiln_header_check_c(void);
int kiln_header_check_c(void) {
    return (int)sizeof(kiln_file);
}
