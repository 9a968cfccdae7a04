#!/usr/bin/env bash
# shipping_symbols.sh DEV_LIBRARY SHIPPING_LIBRARY — a shipping libkiln
# (KILN_RUNTIME_DEV off) has none of the development runtime: no
# cook-on-demand function, no socket call; the development library, built
# from the same sources plus manager_dev.c, has them (so the check can fail).
set -euo pipefail
dev=$1
shipping=$2
pattern='kiln_manager_connect_cooker|mgr_dev_|[^a-z_]socket$|[^a-z_]connect$'
failed=0
dev_symbols=$(nm "$dev")
shipping_symbols=$(nm "$shipping")
if grep -qE "$pattern" <<<"$dev_symbols"; then
    echo "ok:   the development libkiln has the cook-on-demand symbols"
else
    echo "FAIL: the development libkiln lacks the cook-on-demand symbols"
    failed=1
fi
if found=$(grep -E "$pattern" <<<"$shipping_symbols"); then
    echo "FAIL: the shipping libkiln has development symbols:"
    echo "$found" | sed 's/^/    | /'
    failed=1
else
    echo "ok:   the shipping libkiln has none of them"
fi
exit $failed
