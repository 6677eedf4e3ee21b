#!/usr/bin/env bash
# Fetches libcurl 8 (OpenSSL flavour) from Debian's bookworm-backports into .libcurl8/ of this
# checkout, without installing it and without touching the machine's apt sources or its default
# libcurl, and prints the folder to put first on LD_LIBRARY_PATH. The library builds against
# Debian 12's libcurl 7.88.1 headers and runs on either (features are detected at run time), so
# the same build runs the tests on both:
#
#   LD_LIBRARY_PATH="$(bash scripts/libcurl8.sh)" swift test --skip-build
#
# libcurl 8 brings WebSockets (ws://, wss://) and fixes h2c reuse. Its dependencies are the
# same libraries Debian 12 ships (libssl3, libnghttp2-14, libbrotli1, libzstd1, ...).
#
# To make it the machine's libcurl instead (for WebSockets in your own programs):
#   echo 'deb http://deb.debian.org/debian bookworm-backports main' > /etc/apt/sources.list.d/backports.list
#   apt-get update && apt-get install -t bookworm-backports libcurl4-openssl-dev
set -euo pipefail
cd "$(dirname "$0")/.."
folder="$(pwd)/.libcurl8"
libdir="$folder/usr/lib/x86_64-linux-gnu"
if [ -e "$libdir/libcurl.so.4" ]; then echo "$libdir"; exit 0; fi

apt_state="$(mktemp -d)"
trap 'rm -rf "$apt_state"' EXIT
mkdir -p "$apt_state/lists/partial" "$apt_state/archives/partial"
echo "deb http://deb.debian.org/debian bookworm-backports main" > "$apt_state/sources.list"
options=(-o "Dir::Etc::SourceList=$apt_state/sources.list" -o Dir::Etc::SourceParts=/dev/null
         -o "Dir::State::Lists=$apt_state/lists" -o "Dir::Cache::Archives=$apt_state/archives"
         -o APT::Sandbox::User=root)
apt-get "${options[@]}" update -qq >&2
version="$(apt-cache "${options[@]}" policy libcurl4 | awk '/Candidate:/ { print $2 }')"
case "$version" in
    8.*) ;;
    *) echo "libcurl8.sh: bookworm-backports offers no libcurl 8 (candidate: ${version:-none})" >&2; exit 1 ;;
esac
(cd "$apt_state" && apt-get "${options[@]}" download "libcurl4=$version" >&2)
rm -rf "$folder"
dpkg -x "$apt_state"/libcurl4_*.deb "$folder"
[ -e "$libdir/libcurl.so.4" ] || { echo "libcurl8.sh: no libcurl.so.4 in the package" >&2; exit 1; }
echo "libcurl8.sh: libcurl $version in $libdir" >&2
echo "$libdir"
