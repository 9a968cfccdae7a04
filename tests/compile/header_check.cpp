// The public headers compile on their own as C++17.
#include "kiln/format.h"
#include "kiln/kiln.h"
int kiln_header_check_cxx() {
    return static_cast<int>(sizeof(kiln_mesh_view));
}
