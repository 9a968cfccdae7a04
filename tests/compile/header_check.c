/* The public headers compile on their own as C11. */
#include "kiln/format.h"
#include "kiln/kiln.h"
int kiln_header_check_c(void);
int kiln_header_check_c(void) {
    return (int)sizeof(kiln_file);
}
