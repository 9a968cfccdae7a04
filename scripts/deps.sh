#!/bin/sh
# Install the Debian packages of the named sets that are missing:
#
#   sh scripts/deps.sh [SET...]      (default: run)
#
# Each SET is a list in scripts/packages/SET.txt: run (build, cook, run the
# examples), test (what `make test` adds), fuzz (what `make fuzz` adds), bench
# (what `make bench` adds); `make` passes `run` plus its own. A package counts
# as present when it is installed or an installed package provides it (e.g. a
# nodejs that bundles npm). Runs apt-get only when something is missing; needs
# root (or sudo) then. No installed package starts a system service.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 0 ] && set -- run
lists=""
for set in "$@"; do
    if [ ! -f "$here/packages/$set.txt" ]; then
        echo "kiln: unknown package set '$set' (known: $(cd "$here/packages" && ls *.txt | sed 's/\.txt$//' | tr '\n' ' '))" >&2
        exit 2
    fi
    lists="$lists $here/packages/$set.txt"
done
# Installed packages and what they provide, one name a line.
# shellcheck disable=SC2016
present=$(dpkg-query -W -f='${db:Status-Abbrev}|${Package}|${Provides}\n' 2>/dev/null |
    sed -n 's/^ii *|//p' | tr '|,' '\n\n' | sed 's/ *(.*//; s/:.*//; s/^ *//; /^$/d')
missing=""
# shellcheck disable=SC2086
for pkg in $(sed 's/#.*//' $lists | tr -s ' \n' '\n' | awk 'NF && !seen[$0]++'); do
    if ! printf '%s\n' "$present" | grep -qxF "$pkg"; then
        missing="$missing $pkg"
    fi
done
[ -z "$missing" ] && exit 0
echo "kiln: installing missing packages:$missing"
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# The servers the tests start themselves (nginx, redis-server, munge, slurmd,
# slurmctld) must not start as system services when installed: while apt
# runs, Debian's policy-rc.d (exit 101: "not allowed") stops every
# maintainer script from starting one, unless the machine has its own.
policy=/usr/sbin/policy-rc.d
own_policy=false
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# kiln scripts/deps.sh: no service starts while installing\nexit 101\n' |
        $sudo tee "$policy" >/dev/null && $sudo chmod 755 "$policy" && own_policy=true
fi
remove_policy() { if $own_policy; then $sudo rm -f "$policy"; fi; }
trap remove_policy EXIT
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
