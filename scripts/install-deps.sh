#!/usr/bin/env bash
# Installs what feedctl needs to build, test and run on Debian 12 (as root, or with sudo).
# Idempotent: installs only missing packages; runs `apt-get update` only when something is missing.
# Usage: scripts/install-deps.sh [--bench]   (--bench adds the peers the benchmarks compare against)
set -euo pipefail

packages=(
  pkg-config ca-certificates python3
  libxml2-dev libxml2-utils            # FeedIngest parsing (xmllint: parse benchmark peer)
  libsqlite3-dev                       # the library (GRDB over the system SQLite)
  libpq-dev postgresql                 # the PostgreSQL store (libpq); its tests' private server (scripts/pg-test-server.sh)
  haproxy                              # the replica tests (PostgresProcessTests: two feedctl serve behind it); bench/scale
  libcurl4-openssl-dev                 # fetching feeds
  libssl3                              # SHA-256 of session tokens, SHA-1 for Podcast Index (libcrypto, loaded by Digests)
  libavformat-dev libavcodec-dev libswresample-dev libavutil-dev libavfilter-dev ffmpeg  # decoding; test media
  dpkg-dev gcc make nasm libgnutls28-dev zlib1g-dev   # scripts/build-ffmpeg.sh: Debian's FFmpeg source, built minimal
  libpulse-dev pulseaudio pulseaudio-utils   # playback; the headless test/demo server
  sox libsox-fmt-all                   # measuring what reached the sink
  libsystemd-dev dbus dbus-bin playerctl systemd  # MPRIS over sd-bus; the private test bus and its clients
  newsboat gpodder                     # OPML tests: both readers import our export
  python3-mygpoclient                  # gpodder sync tests: gPodder's own client library against `feedctl serve`
  curl openssl                         # the test HTTP server: stats read with curl, HTTPS certificate made with openssl
  groff-base mandoc                    # the man pages' checks (ManPageTests): formatted as man does, linted
  chromium chromium-driver python3-venv  # the web app's browser tests (Tests/web): Selenium drives Debian's Chromium
)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(mpv time sqlite3 wrk nginx-light)  # peers and references of bench/ (newsboat and haproxy are already in); sqlite3: bench/ingest's floor; wrk: bench/serve's load; nginx: bench/scale
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The tests' Python packages from PyPI, into a venv in the per-machine cache (Tests/web/run.py
# and the single sign-on tests use it when python3 lacks them): the browser tests' Selenium and
# axe-core's axe-selenium-python, and oidc-provider-mock, the real OpenID provider (Flask and
# Authlib, with joserfc) the single sign-on tests sign in at on 127.0.0.1.
modules='import selenium, axe_selenium_python, oidc_provider_mock, joserfc'
if ! python3 -c "$modules" 2>/dev/null; then
  venv=${XDG_CACHE_HOME:-$HOME/.cache}/feedctl/web-venv
  if ! "$venv/bin/python" -c "$modules" 2>/dev/null; then
    echo "installing selenium, axe-selenium-python and oidc-provider-mock into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'selenium>=4.10,<5' 'axe-selenium-python>=2.1' 'oidc-provider-mock==0.3.4'
  fi
fi

# Swift 6.3 is not a Debian package: it lives in /opt/swift on these machines.
if ! command -v swift >/dev/null 2>&1; then
  if [[ -x /opt/swift/usr/bin/swift ]]; then
    echo "note: add /opt/swift/usr/bin to PATH" >&2
  else
    echo "error: Swift 6.3 toolchain not found (expected on PATH or in /opt/swift)" >&2
    exit 1
  fi
fi
