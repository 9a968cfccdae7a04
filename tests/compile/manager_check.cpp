// kiln/manager.h compiles on its own as C++17, where KILN_HANDLE is constexpr.
#include "kiln/manager.h"
constexpr kiln_handle kiln_manager_check_handle = KILN_HANDLE("props/crate");
static_assert(kiln_manager_check_handle == 0x887e5a11a73446e1ull,
              "KILN_HANDLE is FNV-1a 64, folded at compile time");
int kiln_manager_header_check_cxx() {
    return static_cast<int>(sizeof(kiln_ref));
}
